import type { BrowserContext } from '@playwright/test'
import { CONTENT_SECURITY_POLICY } from '../../src/server/security-headers.ts'

const MARK = '[csp-violation]'

/**
 * Watches browser contexts for Content-Security-Policy trouble: violations (the DOM
 * `securitypolicyviolation` event and Chromium's console errors) and documents that arrived without
 * the server's exact policy (which would make "no violation" prove nothing).
 */
export class CspWatch {
  /** One line per violation reported in any watched context. */
  readonly violations: string[] = []
  /** Documents served without the exact SPEC 12.3 policy. */
  readonly unprotected: string[] = []
  /** How many documents arrived with the policy. */
  protectedDocuments = 0

  /** Starts watching a context; call before its first page opens. */
  async attach(context: BrowserContext): Promise<void> {
    await context.addInitScript((mark: string) => {
      document.addEventListener('securitypolicyviolation', (event) => {
        console.error(`${mark} ${event.effectiveDirective} blocked ${event.blockedURI || '(inline)'} at ${event.sourceFile}:${event.lineNumber}`)
      })
    }, MARK)
    context.on('console', (message) => {
      const text = message.text()
      if (text.startsWith(MARK) || /Content Security Policy/i.test(text)) this.violations.push(text)
    })
    context.on('response', async (response) => {
      if (response.request().resourceType() !== 'document') return
      const policy = await response.headerValue('content-security-policy')
      if (policy === CONTENT_SECURITY_POLICY) this.protectedDocuments++
      else this.unprotected.push(`${response.url()}: ${policy ?? '(no policy)'}`)
    })
  }
}
