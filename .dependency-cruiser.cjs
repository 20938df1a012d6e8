// Boundary lint (ARCHITECTURE.md "Layout"): the arrows between the rooms of src/ and their doors.
//   protocol <- host <- {plugin, invariant, schedule} <- server;  overlay -> protocol only.
// `npm run lint` runs it; `npm test` runs the lint before anything else.

const ROOMS = ['protocol', 'host', 'plugin', 'invariant', 'schedule', 'server', 'overlay']

/** Folders inside a room that are rooms of their own: the rest of the room enters them through their index.ts. */
const SUB_ROOMS = ['src/host/store']

/**
 * TEMPORARY: imports that reach past a room's index.ts in files whose owners are reshaping them
 * right now. Each entry is one exact `from -> to` pair; nothing else is excused. Burn this list
 * down (switch the import to the room's index.ts, then delete the line); never add to it.
 */
const TEMPORARY_DOOR_EXCEPTIONS = [
  // schedule: protocol files and host/plugin-api.ts, host/ids.ts instead of the two index.ts files
  ['src/schedule/owner.ts', 'src/host/ids.ts'],
  ['src/schedule/owner.ts', 'src/host/plugin-api.ts'],
  ['src/schedule/plugin.ts', 'src/host/plugin-api.ts'],
  ['src/schedule/session-state.ts', 'src/host/plugin-api.ts'],
  ['src/schedule/tools.ts', 'src/host/plugin-api.ts'],
  ['src/schedule/writer.ts', 'src/host/plugin-api.ts'],
  // server: host, schedule and protocol internals instead of their index.ts files
  ['src/server/api-error.ts', 'src/protocol/wire.ts'],
  ['src/server/app.ts', 'src/host/errors.ts'],
  ['src/server/app.ts', 'src/host/host.ts'],
  ['src/server/app.ts', 'src/protocol/events.ts'],
  ['src/server/app.ts', 'src/protocol/time-zone.ts'],
  ['src/server/app.ts', 'src/protocol/wire.ts'],
  ['src/server/check.ts', 'src/host/errors.ts'],
  ['src/server/check.ts', 'src/protocol/events.ts'],
  ['src/server/compose.ts', 'src/host/host.ts'],
  ['src/server/compose.ts', 'src/host/models/model.ts'],
  ['src/server/compose.ts', 'src/host/models/openai.ts'],
  ['src/server/compose.ts', 'src/host/models/script-file.ts'],
  ['src/server/compose.ts', 'src/host/plugin-api.ts'],
  ['src/server/offline-model.ts', 'src/host/models/model.ts'],
  ['src/server/offline-model.ts', 'src/host/plugin-api.ts'],
  ['src/server/serve.ts', 'src/host/host.ts'],
  ['src/server/serve.ts', 'src/protocol/wire.ts'],
  ['src/server/serve.ts', 'src/schedule/plugin.ts'],
]

const escape = (path) => path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const exact = (path) => `^${escape(path)}$`
const others = (room) => ROOMS.filter((other) => other !== room)

/** The arrow rules: which rooms each room may not import from. */
const arrows = [
  ['protocol', others('protocol'), 'protocol is the shared vocabulary: it imports nothing from the project'],
  ['host', ['plugin', 'invariant', 'schedule', 'server', 'overlay'], 'host knows only protocol'],
  ['plugin', ['invariant', 'schedule', 'server', 'overlay'], 'plugin knows only host and protocol'],
  ['invariant', ['plugin', 'schedule', 'server', 'overlay'], 'invariant knows only host and protocol'],
  ['schedule', ['plugin', 'invariant', 'server', 'overlay'], 'schedule knows only host and protocol'],
  ['server', ['overlay'], 'server talks to the overlay over HTTP only, never by import'],
  ['overlay', others('overlay').filter((room) => room !== 'protocol'), 'overlay imports only protocol'],
].map(([room, forbidden, comment]) => ({
  name: `arrow-${room}`,
  comment,
  severity: 'error',
  from: { path: `^src/${room}/` },
  to: { path: `^src/(${forbidden.join('|')})/` },
}))

const exceptedFiles = [...new Set(TEMPORARY_DOOR_EXCEPTIONS.map(([from]) => from))]
const DOOR = '^src/[^/]+/index\\.ts$'

/** Imports from another room go through its index.ts; files with temporary exceptions get one rule each. */
const doors = [
  {
    name: 'front-door',
    comment: "imports from another folder of src/ go through that folder's index.ts",
    severity: 'error',
    from: { path: '^src/([^/]+)/', pathNot: exceptedFiles.map(exact) },
    to: { path: '^src/[^/]+/', pathNot: ['^src/$1/', DOOR] },
  },
  ...exceptedFiles.map((file) => ({
    name: 'front-door',
    comment: `imports from another folder of src/ go through that folder's index.ts (temporary exceptions for ${file})`,
    severity: 'error',
    from: { path: exact(file) },
    to: {
      path: '^src/[^/]+/',
      pathNot: [
        `^src/${file.split('/')[1]}/`,
        DOOR,
        ...TEMPORARY_DOOR_EXCEPTIONS.filter(([from]) => from === file).map(([, to]) => exact(to)),
      ],
    },
  })),
  ...SUB_ROOMS.map((room) => ({
    name: 'sub-room-door',
    comment: `the rest of its room enters ${room}/ through its index.ts`,
    severity: 'error',
    from: { path: `^src/${room.split('/')[1]}/`, pathNot: `^${escape(room)}/` },
    to: { path: `^${escape(room)}/`, pathNot: exact(`${room}/index.ts`) },
  })),
]

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-circular', comment: 'no import cycles, type-only ones included', severity: 'error', from: {}, to: { circular: true } },
    ...arrows,
    ...doors,
  ],
  options: {
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
}
