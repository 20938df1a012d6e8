import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '../..')

const api = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/server/cli.ts'), 'serve', '--no-build', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
})
const vite = await import('vite')
const server = await vite.createServer({ configFile: join(root, 'vite.config.ts'), root: join(root, 'src/overlay') })
await server.listen()
server.printUrls()
const stop = (): void => {
  api.kill('SIGTERM')
  void server.close().finally(() => process.exit(0))
}
process.once('SIGINT', stop)
process.once('SIGTERM', stop)
api.once('exit', (code) => {
  console.error(`API server exited (${String(code)})`)
  void server.close().finally(() => process.exit(code ?? 1))
})
