import { content, SIGNUP_SECTION_ID } from "~/content";
import { Icon } from "./icons";
import { SignupForm, type SignupFormProps } from "./signup-form";
import { SectionHeading } from "./section-heading";

export function SignupSection(props: SignupFormProps) {
  const { signup } = content;
  return (
    <section id={SIGNUP_SECTION_ID} aria-labelledby="signup-title" className="scroll-mt-4 bg-white">
      <div className="mx-auto grid max-w-6xl gap-10 px-4 py-16 sm:px-6 sm:py-24 lg:grid-cols-2 lg:items-start">
        <div>
          <SectionHeading id="signup-title" title={signup.title} lead={signup.lead} />
          <ul className="mt-6 space-y-3">
            {signup.perks.map((perk) => (
              <li key={perk} className="flex items-center gap-3">
                <span className="inline-flex h-7 w-7 items-center justify-center rounded-full bg-brand-100 text-brand-700">
                  <Icon name="check" className="h-4 w-4" />
                </span>
                {perk}
              </li>
            ))}
          </ul>
        </div>
        <SignupForm {...props} />
      </div>
    </section>
  );
}
