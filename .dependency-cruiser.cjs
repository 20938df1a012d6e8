// Boundary lint (ARCHITECTURE.md "Layout"): the arrows between the rooms of src/ and their doors.
//   protocol <- host <- {plugin, invariant, schedule} <- server;  overlay -> protocol only.
// `npm run lint` runs it; `npm test` runs the lint before anything else.

const ROOMS = ['protocol', 'host', 'plugin', 'invariant', 'schedule', 'server', 'overlay']

/** Folders inside a room that are rooms of their own: the rest of the room enters them through their index.ts. */
const SUB_ROOMS = ['src/host/store']


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

const DOOR = '^src/[^/]+/index\\.ts$'

/** Imports from another room go through its index.ts. */
const doors = [
  {
    name: 'front-door',
    comment: "imports from another folder of src/ go through that folder's index.ts",
    severity: 'error',
    from: { path: '^src/([^/]+)/' },
    to: { path: '^src/[^/]+/', pathNot: ['^src/$1/', DOOR] },
  },
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
