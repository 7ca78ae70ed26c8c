/** The heading block every section opens with: its title (labelling the section) and an optional lead. */
export function SectionHeading({ id, title, lead }: { id: string; title: string; lead?: string }) {
  return (
    <>
      <h2 id={id} className="text-3xl font-bold tracking-tight sm:text-4xl">
        {title}
      </h2>
      {lead ? <p className="mt-4 max-w-2xl text-lg text-ink-600">{lead}</p> : null}
    </>
  );
}
