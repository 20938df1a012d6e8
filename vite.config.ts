import react from '@vitejs/plugin-react'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

const fromRoot = (path: string): string => fileURLToPath(new URL(path, import.meta.url))

/** Builds the overlay from src/overlay into dist/overlay; the dev server proxies the API (and its SSE) to the local server. */
export default defineConfig({
  root: fromRoot('./src/overlay'),
  base: '/',
  plugins: [react()],
  build: { outDir: fromRoot('./dist/overlay'), emptyOutDir: true },
  server: { proxy: { '/api': { target: 'http://127.0.0.1:4280' } } },
})
