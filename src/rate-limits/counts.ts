/** Takes `points` off a subject's count in one window's counts; a count that reaches 0 is dropped. */
export function takeOff(counts: Map<string, number>, subject: string, points: number): void {
  const count = counts.get(subject);
  if (count === undefined) return;
  if (count <= points) counts.delete(subject);
  else counts.set(subject, count - points);
}
