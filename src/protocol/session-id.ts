/** Session ids (SPEC 2.1). */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/
