export type {
  Store,
  SessionWriter,
  SessionListing,
  CreateResult,
  OpenVisitor,
  StoredSummary,
  SessionEntry,
  SessionPage,
  EventRange,
  EventPage,
  DueEntry,
  Replication,
  ReplicaCommand,
  ReplicaAnswer,
} from './store.ts'
export { StoreError, isStoreError, corruptSession, storageUnavailable, type StoreErrorCode, type CorruptDetails } from './store-error.ts'
export { JsonlStore, type JsonlStoreOptions } from './jsonl/jsonl-store.ts'
export { nodeFiles, type FileLayer, type FileHandleLike } from './jsonl/file-layer.ts'
export { scanSessionFile, openForReading, loadSessionFile, type ScannedFile } from './jsonl/session-file.ts'
export { PostgresStore, type PostgresStoreOptions } from './postgres/postgres-store.ts'
export { DatabaseSetupError, type DatabaseSetupCode } from './postgres/setup-error.ts'
export { parseDatabaseUrl, type DatabaseUrl } from './postgres/database-url.ts'
export { MIGRATIONS, SCHEMA, SCHEMA_VERSION, migrate, verifySchema, type Migration } from './postgres/migrations.ts'
