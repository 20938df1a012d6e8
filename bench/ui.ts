/** `npm run bench:ui`: the overlay figures of SPEC 12.1 on their own (npm run bench prints them too). */
import { measureUi, renderUiReport } from './ui-bench.ts'

const figures = await measureUi({ log: (line) => console.log(`[bench:ui ${new Date().toISOString().slice(11, 19)}] ${line}`) })
console.log(`\n${renderUiReport(figures)}`)
