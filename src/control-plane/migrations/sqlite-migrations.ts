import type { SqlExecutor } from '../../sql';
import type { MigrationPlan } from './migration-plan';

/**
 * The control plane's SQLite schema, one entry per version (the relay's table included).
 * `PRAGMA user_version` records how many have run; new versions are appended, never edited.
 * Other engines keep their own numbered list with the same tables.
 */
const SQLITE_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE tenants (
    id                 TEXT PRIMARY KEY,
    name               TEXT NOT NULL,
    discovery_key_hash BLOB NOT NULL,
    admin_key_hash     BLOB NOT NULL,
    created_at         INTEGER NOT NULL
  );
  CREATE TABLE connections (
    connection_id TEXT PRIMARY KEY,
    tenant_id     TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    secret_hash   BLOB NOT NULL,
    policy_name   TEXT NOT NULL DEFAULT 'rbac',
    created_at    INTEGER NOT NULL
  );
  CREATE INDEX connections_by_tenant ON connections(tenant_id);
  CREATE TABLE policy_images (
    tenant_id  TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    digest     TEXT NOT NULL,
    body       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, name, digest)
  );
  CREATE TABLE policy_tags (
    tenant_id TEXT NOT NULL,
    name      TEXT NOT NULL,
    tag       TEXT NOT NULL,
    digest    TEXT NOT NULL,
    PRIMARY KEY (tenant_id, name, tag),
    FOREIGN KEY (tenant_id, name, digest) REFERENCES policy_images(tenant_id, name, digest)
  );
  CREATE TABLE directories (
    tenant_id TEXT PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
    revision  INTEGER NOT NULL,
    log_floor INTEGER NOT NULL,
    data      TEXT NOT NULL
  );
  CREATE TABLE directory_changes (
    tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    rev       INTEGER NOT NULL,
    change    TEXT NOT NULL,
    PRIMARY KEY (tenant_id, rev)
  );
  `,
  // 2: signed images. A tenant's registered public keys (JWK, id = RFC 7638 thumbprint),
  // and one signature per stored image; it goes when its image is dropped.
  `
  CREATE TABLE signing_keys (
    tenant_id  TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    kid        TEXT NOT NULL,
    jwk        TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, kid)
  );
  CREATE TABLE policy_signatures (
    tenant_id TEXT NOT NULL,
    name      TEXT NOT NULL,
    digest    TEXT NOT NULL,
    signature TEXT NOT NULL,
    PRIMARY KEY (tenant_id, name, digest),
    FOREIGN KEY (tenant_id, name, digest) REFERENCES policy_images(tenant_id, name, digest) ON DELETE CASCADE
  );
  `,
  // 3: accounts and the console. A tenant is a personal account or an organization (older
  // tenants become organizations); its members are IdP user ids with a role; every change
  // made through the console is written to the tenant's audit log.
  `
  ALTER TABLE tenants ADD COLUMN kind TEXT NOT NULL DEFAULT 'organization' CHECK (kind IN ('personal', 'organization'));
  CREATE TABLE tenant_members (
    tenant_id  TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    user_id    TEXT NOT NULL,
    role       TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'viewer')),
    created_at INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, user_id)
  );
  CREATE INDEX tenant_members_by_user ON tenant_members(user_id);
  CREATE TABLE audit_log (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    actor     TEXT NOT NULL,
    action    TEXT NOT NULL,
    target    TEXT,
    outcome   TEXT NOT NULL,
    at        INTEGER NOT NULL
  );
  CREATE INDEX audit_log_by_tenant ON audit_log(tenant_id, id);
  `,
  // 4: the relay's registrations, keyed by (tenant, instance): instance ids are a tenant's
  // own namespace. Data directories of earlier builds already have the table (the relay
  // created it itself), hence IF NOT EXISTS; the table of the first release (keyed by
  // instance id alone) is dropped: registrations are soft state every edge re-creates.
  `
  DROP TABLE IF EXISTS relay_registrations;
  CREATE TABLE IF NOT EXISTS relay_instances (
    tenant_id          TEXT NOT NULL,
    instance_id        TEXT NOT NULL,
    connection_id      TEXT NOT NULL,
    hostname           TEXT NOT NULL,
    version            TEXT NOT NULL,
    policy_name        TEXT NOT NULL,
    policy_digest      TEXT,
    directory_revision INTEGER NOT NULL,
    connected          INTEGER NOT NULL,
    connected_at       INTEGER NOT NULL,
    last_seen          INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, instance_id)
  ) STRICT;
  CREATE INDEX IF NOT EXISTS relay_instances_connection ON relay_instances (connection_id, connected);
  `,
  // 5: a per-tenant push sequence on images, so "newest first" and "oldest untagged first"
  // break ties between pushes of the same millisecond without SQLite's rowid.
  `
  ALTER TABLE policy_images ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
  UPDATE policy_images SET seq = rowid;
  CREATE INDEX policy_images_by_seq ON policy_images(tenant_id, seq);
  `,
  // 6: versioned signatures. The version each stored signature signed (null for the first
  // format's, which signed none), and per policy name the highest version a signed push has
  // reached: a signed push must go above it. It outlives the images, so evicting one
  // cannot lower it.
  `
  ALTER TABLE policy_signatures ADD COLUMN version INTEGER;
  CREATE TABLE policy_versions (
    tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    name      TEXT NOT NULL,
    version   INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, name)
  );
  `,
  // 7: names in the console. A connection may carry a label saying what it serves (the
  // demo's sidecar, a sample app's embedded edge), and an audit entry says whose it is: a
  // console user's (its actor a user id, as every entry before) or the tenant's admin key's
  // (changes through the admin API, and so the CLIs that call it).
  `
  ALTER TABLE connections ADD COLUMN label TEXT;
  ALTER TABLE audit_log ADD COLUMN actor_kind TEXT NOT NULL DEFAULT 'user' CHECK (actor_kind IN ('user', 'admin_key'));
  `,
  // 8: an audit entry's actor may also be the tenants CLI (npm run tenants, on the
  // control-plane host). SQLite cannot change a CHECK in place: the table is rebuilt with its
  // rows, ids and AUTOINCREMENT counter, and its index.
  `
  CREATE TABLE audit_log_v8 (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id  TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    actor      TEXT NOT NULL,
    action     TEXT NOT NULL,
    target     TEXT,
    outcome    TEXT NOT NULL,
    at         INTEGER NOT NULL,
    actor_kind TEXT NOT NULL DEFAULT 'user' CHECK (actor_kind IN ('user', 'admin_key', 'cli'))
  );
  INSERT INTO audit_log_v8 (id, tenant_id, actor, action, target, outcome, at, actor_kind)
    SELECT id, tenant_id, actor, action, target, outcome, at, actor_kind FROM audit_log;
  DELETE FROM sqlite_sequence WHERE name = 'audit_log_v8';
  INSERT INTO sqlite_sequence (name, seq) SELECT 'audit_log_v8', seq FROM sqlite_sequence WHERE name = 'audit_log';
  DROP TABLE audit_log;
  ALTER TABLE audit_log_v8 RENAME TO audit_log;
  CREATE INDEX audit_log_by_tenant ON audit_log(tenant_id, id);
  `,
  // 9: decision records the tenant's edges ship over the relay (docs/reference/api.md,
  // "Decision records"), newest first by id; kept within a count and an age per tenant.
  `
  CREATE TABLE decisions (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id          TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    instance_id        TEXT NOT NULL,
    received_at        INTEGER NOT NULL,
    at                 INTEGER NOT NULL,
    request_id         TEXT NOT NULL,
    app                TEXT NOT NULL,
    principal_id       TEXT NOT NULL,
    principal_email    TEXT,
    action             TEXT NOT NULL,
    resource_type      TEXT NOT NULL,
    resource_id        TEXT NOT NULL,
    decision           TEXT NOT NULL CHECK (decision IN ('allow', 'deny')),
    reasons            TEXT NOT NULL,
    policy_digest      TEXT NOT NULL,
    directory_revision INTEGER NOT NULL,
    latency_us         INTEGER NOT NULL
  );
  CREATE INDEX decisions_by_tenant ON decisions(tenant_id, id);
  CREATE INDEX decisions_by_request ON decisions(tenant_id, request_id);
  `,
  // 10: push on change (docs/reference/api.md, "Push on change"): whether a directory change or
  // a policy push is broadcast to the tenant's edges by itself. Off unless the tenant turns it
  // on; the first-start seed turns it on for the demo tenant.
  `
  ALTER TABLE tenants ADD COLUMN push_on_change INTEGER NOT NULL DEFAULT 0;
  `,
];

/** SQLite records the schema version in the file header, `PRAGMA user_version`. */
export const SQLITE_MIGRATION_PLAN: MigrationPlan = {
  migrations: SQLITE_MIGRATIONS,
  async readVersion(tx: SqlExecutor) {
    const row = await tx.get<{ user_version: number }>('PRAGMA user_version');
    return row?.user_version ?? 0;
  },
  async writeVersion(tx: SqlExecutor, version: number) {
    await tx.exec(`PRAGMA user_version = ${Math.floor(version)}`);
  },
};
