import AxeBuilder from '@axe-core/playwright'
import { expect, type Page, type TestInfo } from '@playwright/test'

/** Runs axe-core on the page as it is (WCAG 2.x A/AA and best practices), expects no violation, and saves a screenshot of the view. */
export async function expectAccessible(page: Page, testInfo: TestInfo, view: string): Promise<void> {
  await page.screenshot({ path: testInfo.outputPath(`${view}.png`) })
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']).analyze()
  const found = results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
  expect(found, `axe-core violations on the ${view} view`).toEqual([])
}
