/**
 * Runs in the page: how far the e-mail label sits below the form card's inner top edge (inside its border), and the
 * card's top padding. Equal when nothing takes room above the field, however the card is spaced.
 */
export function emailLabelBelowCardEdge(): { labelBelowEdge: number; padding: number } {
  const card = document.getElementById("signup-form")!;
  const labelTop = card.querySelector('label[for="email"]')!.getBoundingClientRect().top;
  return {
    labelBelowEdge: labelTop - (card.getBoundingClientRect().top + card.clientTop),
    padding: parseFloat(getComputedStyle(card).paddingTop),
  };
}
