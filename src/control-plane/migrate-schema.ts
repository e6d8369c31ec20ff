import type { Database } from 'better-sqlite3';

/**
 * The control plane's schema, one entry per version. `PRAGMA user_version` records how
 * many have run; new versions are appended, never edited. Other components sharing the
 * file (the relay) create their own tables with `IF NOT EXISTS` and leave the pragma alone.
 */
const MIGRATIONS: readonly string[] = [
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
];

/** Brings the database up to the newest schema version inside one transaction. */
export function migrateSchema(db: Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(`control-plane database has schema version ${current}, newer than this build (${MIGRATIONS.length})`);
  }
  const run = db.transaction(() => {
    for (let v = current; v < MIGRATIONS.length; v += 1) db.exec(MIGRATIONS[v]!);
    db.pragma(`user_version = ${MIGRATIONS.length}`);
  });
  run.immediate();
}
