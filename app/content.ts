/** Every word the visitor reads, in pt-BR, in one place. */

/** The product's name, as every page and message spells it. */
const NAME = "Prevly";

export const SIGNUP_SECTION_ID = "cadastro";
export const EMAIL_INPUT_ID = "email";

export const content = {
  site: { name: NAME, contactEmail: "contato@prevly.com.br" },
  meta: {
    title: `${NAME} — sua previdência privada em um só app`,
    /** The page's title after a form result: its notice first. */
    resultTitle: (notice: string, title: string) => `${notice} — ${title}`,
    description:
      "Marketplace de previdência privada integrado ao Open Insurance: veja todos os seus planos, compare, faça portabilidade digital e use seu patrimônio a seu favor. Cadastre-se para saber do lançamento.",
    themeColor: "#0b6a55",
    /**
     * The pictures `npm run share-images` draws into public/: the link preview WhatsApp, Instagram, LinkedIn and X
     * show (PNG under 300 KB, which WhatsApp needs) and the icon a phone puts on its home screen.
     */
    shareImage: { path: "/og-image.png", width: 1200, height: 630 },
    touchIcon: { path: "/apple-touch-icon.png", width: 180, height: 180 },
    shareImageAlt: `${NAME}: o título "Toda a sua previdência privada em um só app" ao lado de um celular com o painel do app — três planos de previdência, o saldo total em reais e a conexão pelo Open Insurance.`,
  },
  banner: "Lançamento em breve",
  hero: {
    badges: ["Em desenvolvimento", "Open Insurance"],
    title: "Toda a sua previdência privada em um só app",
    lead: "Um marketplace de planos de previdência integrado ao Open Insurance: veja seus planos, compare alternativas, faça portabilidade e use seu patrimônio a seu favor — com segurança e transparência.",
    cta: "Seja o primeiro a saber!",
    figures: [
      { value: "13M", label: "titulares no mercado" },
      { value: "R$ 1T+", label: "em ativos privados" },
      { value: "100%", label: "seguro e regulado" },
    ],
  },
  features: {
    title: "Tudo o que sua previdência precisa",
    lead: "Ferramentas pensadas para quem tem PGBL, VGBL ou fundo de pensão e quer tomar decisões com clareza.",
    items: [
      {
        icon: "dashboard",
        title: "Painel consolidado",
        text: "Todos os seus planos de previdência reunidos em um só painel, com saldo, rentabilidade e taxas lado a lado.",
      },
      {
        icon: "credit",
        title: "Crédito com garantia da previdência",
        text: "Use seu patrimônio previdenciário como garantia para conseguir crédito com juros menores, sem resgatar o plano.",
      },
      {
        icon: "portability",
        title: "Portabilidade digital",
        text: "Leve seu saldo para outra instituição de forma 100% digital, sem papelada e acompanhando cada etapa.",
      },
      {
        icon: "education",
        title: "Educação financeira simples",
        text: "Conteúdos curtos e sem juridiquês: PGBL ou VGBL, tabela progressiva ou regressiva, quanto guardar por mês.",
      },
      {
        icon: "consent",
        title: "Gestão de consentimentos",
        text: "Você decide quais dados compartilha, com quem e por quanto tempo — e revoga quando quiser.",
      },
      {
        icon: "shield",
        title: "Integração Open Insurance",
        text: "Conexão segura e regulada com as seguradoras e entidades participantes do Open Insurance Brasil.",
      },
    ],
  },
  steps: {
    title: "Como vai funcionar",
    /** Read by screen readers before each step's title. */
    stepLabel: (number: number) => `Passo ${number}: `,
    items: [
      {
        title: "Conecte seus planos",
        text: "Autorize o compartilhamento dos seus dados pelo Open Insurance em poucos toques.",
      },
      {
        title: "Veja tudo em um só lugar",
        text: "Saldos, rentabilidade, taxas e coberturas de todos os planos, organizados para você.",
      },
      {
        title: "Tome decisões inteligentes",
        text: "Compare alternativas, simule a portabilidade e entenda o impacto de cada escolha.",
      },
      {
        title: "Mantenha o controle",
        text: "Acompanhe seus consentimentos e revogue acessos a qualquer momento.",
      },
    ],
  },
  signup: {
    title: "Receba o convite de lançamento",
    lead: "Deixe seu e-mail e avisaremos você antes de todo mundo.",
    perks: ["Acesso antecipado", "Data de lançamento em primeira mão", "Dicas exclusivas de previdência"],
    emailLabel: "Seu e-mail",
    emailPlaceholder: "Digite seu melhor e-mail",
    submit: "Cadastrar",
    submitting: "Enviando…",
    captchaLoading: "Carregando verificação anti-robô…",
    questionLegend: "Verificação anti-robô",
    questionHint: "Responda com algarismos ou por extenso.",
    /** Under the captcha: swaps it for the question, for visitors who cannot solve it (screen readers). */
    questionInstead: "Não consegue resolver o captcha? Responda a uma pergunta",
    botTrapLabel: "Deixe este campo em branco",
    privacy: "Usamos seu e-mail apenas para avisar sobre o lançamento. Você pode pedir a exclusão quando quiser.",
    /** Tied to 'Cadastrar' while it waits for the captcha. */
    submitHint: "Para liberar o botão Cadastrar, resolva o captcha acima ou responda à pergunta.",
    /** Read by screen readers before the message beside a refused field. */
    errorPrefix: "Erro:",
    toastsLabel: "Avisos",
    closeToast: "Fechar aviso",
  },
  messages: {
    invalidEmail: { title: "E-mail inválido", description: "Por favor, informe um e-mail válido." },
    captchaMissing: {
      title: "Valide o captcha",
      description: "Confirme que você não é um robô resolvendo o captcha.",
    },
    questionMissing: {
      title: "Valide o captcha",
      description: "Responda à pergunta de verificação acima para concluir o cadastro.",
    },
    formExpired: {
      title: "Página desatualizada",
      description:
        "Esta página ficou aberta por muito tempo. Atualizamos o formulário: confira seu e-mail e envie de novo (ou recarregue a página).",
    },
    restarting: {
      title: "Servidor reiniciando",
      description: "Estamos atualizando o site neste momento. Aguarde alguns segundos e envie de novo.",
    },
    questionWrong: {
      title: "Resposta incorreta",
      description: "Confira a conta e responda à nova pergunta.",
    },
    questionExpired: {
      title: "Pergunta expirada",
      description: "Responda à nova pergunta para concluir o cadastro.",
    },
    tooMany: {
      title: "Muitas tentativas",
      description: "Recebemos muitos envios da sua conexão neste momento. Aguarde alguns segundos e envie de novo.",
    },
    tooManyNow: {
      title: "Muitas tentativas",
      description: "Estamos recebendo muitos cadastros neste momento. Aguarde alguns segundos e envie de novo.",
    },
    formUnreadable: {
      title: "Página desatualizada",
      description: "Este formulário não pode mais ser enviado. Já o atualizamos: confira seu e-mail e envie de novo.",
    },
    questionBudgetSpent: {
      title: "Muitos cadastros sem captcha",
      description:
        "Recebemos muitos cadastros pela pergunta de verificação agora. Tente de novo em alguns minutos, ou ative o JavaScript para usar o captcha.",
    },
    questionUnavailable: {
      title: "Cadastro sem captcha indisponível",
      description:
        "Não conseguimos conferir sua resposta agora. Tente de novo em alguns minutos, ou ative o JavaScript para usar o captcha.",
    },
    storeUnavailable: {
      title: "Cadastro indisponível no momento",
      description: "Não conseguimos registrar seu cadastro agora. Aguarde alguns segundos e envie de novo.",
    },
    unreadable: {
      title: "Envio inválido",
      description: "Não foi possível ler o formulário. Recarregue a página e tente novamente.",
    },
    failureTitle: "Falha ao enviar",
    failureFallback: "Não foi possível enviar seu cadastro agora. Tente novamente.",
    webhookStatus: (status: number, statusText: string, text: string) =>
      `Webhook retornou ${status}${statusText ? ` ${statusText}` : ""}${text ? `: ${text}` : ""}`,
    success: {
      title: "Cadastro realizado!",
      description: `Você será notificado assim que o ${NAME} for lançado.`,
    },
  },
  footer: {
    legalTitle: "Documentos legais",
    legalLinks: ["Política de Privacidade", "Termos de Uso", "LGPD"],
    legalNote: "Os documentos legais serão publicados antes do lançamento.",
    regulationsTitle: "Regulamentação",
    regulations: [
      "LGPD — Lei nº 13.709/2018",
      "Open Insurance — Resolução CNSP nº 415/2021",
      "Previdência complementar — Lei Complementar nº 109/2001",
      "Código de Defesa do Consumidor — Lei nº 8.078/1990",
    ],
    contactTitle: "Contato",
    disclaimer: `O ${NAME} está em desenvolvimento. As funcionalidades descritas podem mudar até o lançamento.`,
    /** The specification's constant, not the year of the render. */
    copyright: `© 2024 ${NAME}. Todos os direitos reservados.`,
  },
  notFound: {
    title: "Oops! Page not found",
    link: "Return to Home",
    metaTitle: `Página não encontrada — ${NAME}`,
  },
  /**
   * A request refused before the page, in plain text by the app (app/server/) and as its own page by the load balancer
   * (deploy/nginx.conf), one text per meaning.
   */
  refusals: {
    invalid: "Requisição inválida.",
    notAllowed: "Método não permitido.",
    otherSite: "Envio recusado: o formulário veio de outro endereço. Abra a página e envie de novo.",
    tooLong: "Endereço ou cabeçalhos grandes demais.",
    tooLarge: "Requisição grande demais.",
    tooSlow: "A requisição demorou demais para chegar. Tente de novo.",
  },
  /**
   * The pages the load balancer answers by itself (deploy/nginx.conf), without the apps: past its limit on one
   * connection's posts, or with no instance answering. Visitors without JavaScript read them instead of the form.
   */
  balancer: {
    unavailable: {
      title: "Serviço indisponível no momento",
      description: "Não conseguimos atender agora. Aguarde alguns segundos e tente de novo.",
    },
    keepTyped:
      "Se você estava se cadastrando, o botão Voltar do navegador costuma trazer de volta o e-mail que você digitou.",
    link: "Voltar ao formulário",
  },
  /** What the root's error boundary shows when a page cannot be rendered. */
  error: {
    title: "Algo deu errado",
    description: (status: number) => `Erro ${status}. Tente novamente em instantes.`,
    link: "Voltar para o início",
  },
} as const;

export type FeatureIcon = (typeof content.features.items)[number]["icon"];

/**
 * The labels of the app drawn beside the hero (decorative: the text beside it says the same). Sample figures; the
 * plans' balances add up to the total. An export of its own: only the server draws the picture, so the browser's bundle
 * leaves these out.
 */
export const productPreviewContent = {
  clock: "9:41",
  greeting: "Olá, Ana",
  avatar: "A",
  totalLabel: "Sua previdência hoje",
  total: "R$ 248.930,52",
  totalChange: "+9,7% em 12 meses",
  openInsurance: "Conectado ao Open Insurance",
  plansTitle: "Seus planos",
  plansCount: "3 planos",
  plans: [
    { name: "PGBL · Renda fixa", balance: "R$ 132.410,20", change: "+10,4%" },
    { name: "VGBL · Multimercado", balance: "R$ 86.275,04", change: "+8,9%" },
    { name: "Fundo de pensão", balance: "R$ 30.245,28", change: "+9,1%" },
  ],
  action: "Simular portabilidade",
} as const;
