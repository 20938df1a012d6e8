import { DatabaseSetupError } from './setup-error.ts'

/** A checked database URL and its form safe to print (the password replaced). */
export type DatabaseUrl = { connectionString: string; display: string }

/** Checks that `text` is a `postgres://` or `postgresql://` URL naming a host; throws `bad-url` otherwise. */
export function parseDatabaseUrl(text: string): DatabaseUrl {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new DatabaseSetupError('bad-url', `the database URL ${JSON.stringify(redactLoose(text))} is not a URL: use postgres://user:password@host:5432/database`)
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new DatabaseSetupError('bad-url', `the database URL must start with postgres:// or postgresql://, got ${url.protocol}//`)
  }
  if (url.hostname === '' && !url.searchParams.has('host')) {
    throw new DatabaseSetupError('bad-url', 'the database URL names no host: use postgres://user:password@host:5432/database')
  }
  const shown = new URL(url.href)
  if (shown.password !== '') shown.password = '***'
  return { connectionString: url.href, display: shown.href }
}

function redactLoose(text: string): string {
  return text.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@')
}
