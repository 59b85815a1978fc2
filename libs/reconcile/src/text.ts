// Wording shared by the planner's messages.

/** "1 pod", "3 pods". */
export function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}
