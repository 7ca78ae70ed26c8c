import { content } from "~/content";

const LEGAL_NOTE_ID = "documentos-legais";

export function SiteFooter() {
  const { footer } = content;
  const { contactEmail } = content.site;
  return (
    <footer className="focus-on-dark bg-brand-950 text-brand-100">
      <div className="mx-auto grid max-w-6xl gap-10 px-4 py-12 sm:grid-cols-3 sm:px-6">
        <div>
          <h2 className="text-sm font-bold uppercase tracking-wide text-white">{footer.legalTitle}</h2>
          <ul className="mt-4 space-y-2">
            {footer.legalLinks.map((label) => (
              // Placeholders until the documents exist: they point at the note below.
              <li key={label}>
                <a className="inline-block underline-offset-4 hover:underline" href={`#${LEGAL_NOTE_ID}`}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
          <p id={LEGAL_NOTE_ID} className="mt-4 text-sm text-brand-200">
            {footer.legalNote}
          </p>
        </div>
        <div>
          <h2 className="text-sm font-bold uppercase tracking-wide text-white">{footer.regulationsTitle}</h2>
          <ul className="mt-4 space-y-2 text-sm">
            {footer.regulations.map((regulation) => (
              <li key={regulation}>{regulation}</li>
            ))}
          </ul>
        </div>
        <div>
          <h2 className="text-sm font-bold uppercase tracking-wide text-white">{footer.contactTitle}</h2>
          <a className="mt-4 inline-block break-all underline underline-offset-4" href={`mailto:${contactEmail}`}>
            {contactEmail}
          </a>
        </div>
      </div>
      <div className="border-t border-white/10">
        <div className="mx-auto max-w-6xl space-y-1 px-4 py-6 text-sm text-brand-200 sm:px-6">
          <p>{footer.disclaimer}</p>
          <p>{footer.copyright}</p>
        </div>
      </div>
    </footer>
  );
}
