import { useSyncExternalStore } from 'react'
import type { ReminderDueNotice } from '../../protocol/index.ts'

/** A reminder of some Session that came due (`event: reminder-due`, SPEC 8 v2), with the key of that occurrence and when this page heard of it (epoch ms). */
export type DueNotice = ReminderDueNotice & { key: string; arrivedAt: number }

type State = {
  toasts: DueNotice[]
  unread: Readonly<Record<string, number>>
  done: ReadonlySet<string>
  /** Occurrences snoozed here, with when the reminder that replaced them is due. */
  snoozed: Readonly<Record<string, string>>
  active: string | null
}

const UNREAD_KEY = 'schedule-web:unread'
const DONE_KEY = 'schedule-web:done'
const SNOOZED_KEY = 'schedule-web:snoozed'
const DONE_LIMIT = 500
/** Toasts kept (the overlay shows the newest few and counts the rest). */
const TOAST_LIMIT = 50

function load<T>(key: string, fallback: T, valid: (value: unknown) => value is T): T {
  try {
    const raw = window.localStorage.getItem(key)
    if (raw === null) return fallback
    const value: unknown = JSON.parse(raw)
    return valid(value) ? value : fallback
  } catch {
    return fallback
  }
}

function save(key: string, value: unknown): void {
  try {
    window.localStorage.setItem(key, JSON.stringify(value))
  } catch {
    // storage can be full or unavailable: the marks still live for this page
  }
}

const isCounts = (value: unknown): value is Record<string, number> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((n) => Number.isSafeInteger(n) && (n as number) > 0)
const isKeys = (value: unknown): value is string[] => Array.isArray(value) && value.every((k) => typeof k === 'string')
const isLabels = (value: unknown): value is Record<string, string> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string')

let state: State = {
  toasts: [],
  unread: typeof window === 'undefined' ? {} : load(UNREAD_KEY, {}, isCounts),
  done: new Set(typeof window === 'undefined' ? [] : load(DONE_KEY, [], isKeys)),
  snoozed: typeof window === 'undefined' ? {} : load(SNOOZED_KEY, {}, isLabels),
  active: null,
}
const listeners = new Set<() => void>()

function set(next: State): void {
  if (next.unread !== state.unread) save(UNREAD_KEY, next.unread)
  if (next.done !== state.done) save(DONE_KEY, [...next.done].slice(-DONE_LIMIT))
  if (next.snoozed !== state.snoozed) save(SNOOZED_KEY, Object.fromEntries(Object.entries(next.snoozed).slice(-DONE_LIMIT)))
  state = next
  for (const listener of listeners) listener()
}

/**
 * Marks another tab of this browser made (it wrote them to localStorage, and the browser tells every other tab): an
 * occurrence handled there, Done or Snoozed, is handled here too — its card says so and its toast closes — so it is
 * not snoozed twice. Joined with this tab's marks, not written back. Unread counts stay each tab's own.
 */
function fromOtherTab(event: StorageEvent): void {
  if (event.key !== null && event.key !== DONE_KEY && event.key !== SNOOZED_KEY) return
  // joined with this tab's own marks: two tabs marking at once both keep both
  const done = event.key === SNOOZED_KEY ? state.done : new Set([...state.done, ...load(DONE_KEY, [], isKeys)])
  const snoozed = event.key === DONE_KEY ? state.snoozed : { ...state.snoozed, ...load(SNOOZED_KEY, {}, isLabels) }
  state = { ...state, done, snoozed, toasts: state.toasts.filter((t) => !done.has(t.key)) }
  for (const listener of listeners) listener()
}

if (typeof window !== 'undefined') window.addEventListener('storage', fromOtherTab)

/** The key that names one occurrence of one reminder, shared by the toast and the due card. */
export function noticeKey(sessionId: string, scheduleId: string, occurrenceAt: string): string {
  return `${sessionId}\u0000${scheduleId}\u0000${occurrenceAt}`
}

function watching(sessionId: string): boolean {
  return state.active === sessionId && document.visibilityState === 'visible'
}

/** Records a due reminder: a toast, and an unread mark unless the person is looking at that Session right now. */
export function noticeDue(notice: ReminderDueNotice): DueNotice {
  const key = noticeKey(notice.sessionId, notice.scheduleId, notice.occurrenceAt)
  const known = state.toasts.find((t) => t.key === key)
  if (known !== undefined) return known
  const full = { ...notice, key, arrivedAt: Date.now() }
  if (state.done.has(key)) return full
  const unread = watching(notice.sessionId) ? state.unread : { ...state.unread, [notice.sessionId]: (state.unread[notice.sessionId] ?? 0) + 1 }
  set({ ...state, toasts: [...state.toasts, full].slice(-TOAST_LIMIT), unread })
  return full
}

/** Closes a toast. */
export function dismissToast(key: string): void {
  set({ ...state, toasts: state.toasts.filter((t) => t.key !== key) })
}

/** Closes every toast (their Sessions keep their unread marks). */
export function dismissAllToasts(): void {
  if (state.toasts.length > 0) set({ ...state, toasts: [] })
}

/** Marks a reminder occurrence as handled (Done): its toast closes and its due card says so. */
export function markDone(key: string): void {
  handled(key, state.snoozed)
}

/** An occurrence handled here: marked done, its toast closed, with the snoozes known after it. */
function handled(key: string, snoozed: Readonly<Record<string, string>>): void {
  const done = new Set(state.done)
  done.add(key)
  set({ ...state, done, snoozed, toasts: state.toasts.filter((t) => t.key !== key) })
}

/** Marks a reminder occurrence as snoozed (handled, like Done) by a reminder due at `until` (ISO): its due card says when, wherever it is shown again. */
export function markSnoozed(key: string, until: string): void {
  handled(key, { ...state.snoozed, [key]: until })
}

/** Clears a Session's unread mark. */
export function markRead(sessionId: string): void {
  if (state.unread[sessionId] === undefined) return
  const { [sessionId]: _read, ...rest } = state.unread
  set({ ...state, unread: rest })
}

/** Tells the store which Session the person has open (null: none); opening one reads it. */
export function setActiveSession(sessionId: string | null): void {
  if (state.active !== sessionId) state = { ...state, active: sessionId }
  if (sessionId !== null && document.visibilityState === 'visible') markRead(sessionId)
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/** Toasts on screen, oldest first. */
export function useToasts(): DueNotice[] {
  return useSyncExternalStore(subscribe, () => state.toasts)
}

/** Unread due reminders per Session. */
export function useUnread(): Readonly<Record<string, number>> {
  return useSyncExternalStore(subscribe, () => state.unread)
}

/** Occurrences the person marked Done. */
export function useDone(): ReadonlySet<string> {
  return useSyncExternalStore(subscribe, () => state.done)
}

/** Occurrences whose due card is on screen now (in the conversation's view), by key. */
let cardsInView: ReadonlySet<string> = new Set()
const viewListeners = new Set<() => void>()

/** Tells the store that the due card of occurrence `key` came into view (`true`) or left it. */
export function setCardInView(key: string, inView: boolean): void {
  if (cardsInView.has(key) === inView) return
  const next = new Set(cardsInView)
  if (inView) next.add(key)
  else next.delete(key)
  cardsInView = next
  for (const listener of viewListeners) listener()
}

function subscribeView(listener: () => void): () => void {
  viewListeners.add(listener)
  return () => viewListeners.delete(listener)
}

/** The occurrences whose due card is in view now. */
export function useCardsInView(): ReadonlySet<string> {
  return useSyncExternalStore(subscribeView, () => cardsInView)
}

/** Occurrences snoozed here, each with when its replacing reminder is due (ISO). */
export function useSnoozed(): Readonly<Record<string, string>> {
  return useSyncExternalStore(subscribe, () => state.snoozed)
}
