/**
 * `compute` with its answers remembered for the last keys asked (at most `kept`; all are forgotten at once when full,
 * so a caller sending endless new keys costs only the computing): for pure functions on a hot path asked the same
 * few keys again and again. `worthKeeping` leaves out answers not worth holding (and their keys) in memory.
 */
export function memoized<V>(compute: (key: string) => V, kept: number, worthKeeping: (answer: V) => boolean = () => true): (key: string) => V {
  const answers = new Map<string, V>()
  return (key) => {
    const known = answers.get(key)
    if (known !== undefined || answers.has(key)) return known as V
    const answer = compute(key)
    if (!worthKeeping(answer)) return answer
    if (answers.size >= kept) answers.clear()
    answers.set(key, answer)
    return answer
  }
}
