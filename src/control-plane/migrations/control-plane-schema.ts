import { addColumn, compareByBytes, createIndex, createTable, createTableIfNotExists, dropTableIfExists, fill, replaceCheck, type SchemaStep } from './schema-steps';

/**
 * The control plane's schema, once for SQLite and PostgreSQL: one entry per version, each a
 * list of steps `render-schema-steps.ts` writes in either engine's SQL (types in
 * `schema-steps.ts`). New versions are appended, never edited: a database records how many
 * have run (SQLite in `PRAGMA user_version`, PostgreSQL in `schema_version`).
 */
export const CONTROL_PLANE_MIGRATIONS: readonly (readonly SchemaStep[])[] = [
  // 1: tenants, their edge connections, policy images and tags, directories and their change log.
  [
    createTable('tenants', {
      columns: {
        id: 'text PRIMARY KEY',
        name: 'text NOT NULL',
        discovery_key_hash: 'bytes NOT NULL',
        admin_key_hash: 'bytes NOT NULL',
        created_at: 'bigint NOT NULL',
      },
    }),
    createTable('connections', {
      columns: {
        connection_id: 'text PRIMARY KEY',
        tenant_id: 'text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE',
        secret_hash: 'bytes NOT NULL',
        policy_name: "text NOT NULL DEFAULT 'rbac'",
        created_at: 'bigint NOT NULL',
      },
    }),
    createIndex('connections_by_tenant', 'connections', 'tenant_id'),
    createTable('policy_images', {
      columns: {
        tenant_id: 'text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE',
        name: 'text NOT NULL',
        digest: 'text NOT NULL',
        body: 'text NOT NULL',
        created_at: 'bigint NOT NULL',
      },
      constraints: ['PRIMARY KEY (tenant_id, name, digest)'],
    }),
    createTable('policy_tags', {
      columns: { tenant_id: 'text NOT NULL', name: 'text NOT NULL', tag: 'text NOT NULL', digest: 'text NOT NULL' },
      constraints: ['PRIMARY KEY (tenant_id, name, tag)', 'FOREIGN KEY (tenant_id, name, digest) REFERENCES policy_images(tenant_id, name, digest)'],
    }),
    createTable('directories', {
      columns: {
        tenant_id: 'text PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE',
        revision: 'bigint NOT NULL',
        log_floor: 'bigint NOT NULL',
        data: 'text NOT NULL',
      },
    }),
    createTable('directory_changes', {
      columns: { tenant_id: 'text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE', rev: 'bigint NOT NULL', change: 'text NOT NULL' },
      constraints: ['PRIMARY KEY (tenant_id, rev)'],
    }),
  ],
  // 2: signed images. A tenant's registered public keys (JWK, id = RFC 7638 thumbprint),
  // and one signature per stored image; it goes when its image is dropped.
  [
    createTable('signing_keys', {
      columns: { tenant_id: 'text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE', kid: 'text NOT NULL', jwk: 'text NOT NULL', created_at: 'bigint NOT NULL' },
      constraints: ['PRIMARY KEY (tenant_id, kid)'],
    }),
    createTable('policy_signatures', {
      columns: { tenant_id: 'text NOT NULL', name: 'text NOT NULL', digest: 'text NOT NULL', signature: 'text NOT NULL' },
      constraints: [
        'PRIMARY KEY (tenant_id, name, digest)',
        'FOREIGN KEY (tenant_id, name, digest) REFERENCES policy_images(tenant_id, name, digest) ON DELETE CASCADE',
      ],
    }),
  ],
  // 3: accounts and the console. A tenant is a personal account or an organization (older
  // tenants become organizations); its members are IdP user ids with a role; every change
  // made through the console is written to the tenant's audit log.
  [
    addColumn('tenants', 'kind', "text NOT NULL DEFAULT 'organization' CHECK (kind IN ('personal', 'organization'))"),
    createTable('tenant_members', {
      columns: {
        tenant_id: 'text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE',
        user_id: 'text NOT NULL',
        role: "text NOT NULL CHECK (role IN ('owner', 'admin', 'viewer'))",
        created_at: 'bigint NOT NULL',
      },
      constraints: ['PRIMARY KEY (tenant_id, user_id)'],
    }),
    createIndex('tenant_members_by_user', 'tenant_members', 'user_id'),
    createTable('audit_log', {
      columns: {
        id: 'identity',
        tenant_id: 'text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE',
        actor: 'text NOT NULL',
        action: 'text NOT NULL',
        target: 'text',
        outcome: 'text NOT NULL',
        at: 'bigint NOT NULL',
      },
    }),
    createIndex('audit_log_by_tenant', 'audit_log', 'tenant_id, id'),
  ],
  // 4: the relay's registrations of edge instances, keyed by (tenant, instance): instance ids
  // are a tenant's own namespace. Soft state: every edge re-creates its row when it reconnects.
  // SQLite data directories of earlier builds already have the table (the relay created it
  // itself), hence IF NOT EXISTS; the first release's table (keyed by instance id alone) goes.
  [
    dropTableIfExists('relay_registrations'),
    createTableIfNotExists('relay_instances', {
      columns: {
        tenant_id: 'text NOT NULL',
        instance_id: 'text NOT NULL',
        connection_id: 'text NOT NULL',
        hostname: 'text NOT NULL',
        version: 'text NOT NULL',
        policy_name: 'text NOT NULL',
        policy_digest: 'text',
        directory_revision: 'bigint NOT NULL',
        connected: 'integer NOT NULL',
        connected_at: 'bigint NOT NULL',
        last_seen: 'bigint NOT NULL',
      },
      constraints: ['PRIMARY KEY (tenant_id, instance_id)'],
      strictOnSqlite: true,
    }),
    createIndex('relay_instances_connection', 'relay_instances', 'connection_id, connected', { ifNotExists: true }),
  ],
  // 5: the text columns lists are ordered or paged by compare by bytes whatever collation the
  // database has, so a page token (an instance id) and a list's order mean the same on both
  // engines. And a per-tenant push sequence on images, so "newest first" and "oldest untagged
  // first" break ties between pushes of the same millisecond; images stored before are
  // numbered in the order they were stored (SQLite: by rowid; PostgreSQL: by time, then place).
  [
    compareByBytes('tenants', 'id', 'name'),
    compareByBytes('connections', 'connection_id'),
    compareByBytes('tenant_members', 'user_id'),
    compareByBytes('signing_keys', 'kid'),
    compareByBytes('policy_tags', 'name'),
    compareByBytes('relay_instances', 'instance_id'),
    addColumn('policy_images', 'seq', 'bigint NOT NULL DEFAULT 0'),
    fill({
      sqlite: 'UPDATE policy_images SET seq = rowid',
      postgres: `UPDATE policy_images p SET seq = o.n
        FROM (SELECT ctid AS row_id, ROW_NUMBER() OVER (ORDER BY created_at, ctid) AS n FROM policy_images) o
       WHERE p.ctid = o.row_id`,
    }),
    createIndex('policy_images_by_seq', 'policy_images', 'tenant_id, seq'),
  ],
  // 6: versioned signatures. The version each stored signature signed (null for the first
  // format's, which signed none), and per policy name the highest version a signed push has
  // reached: a signed push must go above it. It outlives the images, so evicting one cannot lower it.
  [
    addColumn('policy_signatures', 'version', 'bigint'),
    createTable('policy_versions', {
      columns: { tenant_id: 'text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE', name: 'text NOT NULL', version: 'bigint NOT NULL' },
      constraints: ['PRIMARY KEY (tenant_id, name)'],
    }),
  ],
  // 7: names in the console. A connection may carry a label saying what it serves, and an
  // audit entry says whose it is: a console user's (its actor a user id, as every entry
  // before) or the tenant's admin key's (the admin API, and so the CLIs that call it).
  [
    addColumn('connections', 'label', 'text'),
    addColumn('audit_log', 'actor_kind', "text NOT NULL DEFAULT 'user' CHECK (actor_kind IN ('user', 'admin_key'))"),
  ],
  // 8: an audit entry's actor may also be the tenants CLI (npm run tenants, on the control-plane host).
  [replaceCheck('audit_log', 'actor_kind', "CHECK (actor_kind IN ('user', 'admin_key', 'cli'))")],
  // 9: decision records the tenant's edges ship over the relay (docs/reference/api.md,
  // "Decision records"), newest first by id; kept within a count and an age per tenant.
  [
    createTable('decisions', {
      columns: {
        id: 'identity',
        tenant_id: 'text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE',
        instance_id: 'text NOT NULL',
        received_at: 'bigint NOT NULL',
        at: 'bigint NOT NULL',
        request_id: 'text NOT NULL',
        app: 'text NOT NULL',
        principal_id: 'text NOT NULL',
        principal_email: 'text',
        action: 'text NOT NULL',
        resource_type: 'text NOT NULL',
        resource_id: 'text NOT NULL',
        decision: "text NOT NULL CHECK (decision IN ('allow', 'deny'))",
        reasons: 'text NOT NULL',
        policy_digest: 'text NOT NULL',
        directory_revision: 'bigint NOT NULL',
        latency_us: 'bigint NOT NULL',
      },
    }),
    createIndex('decisions_by_tenant', 'decisions', 'tenant_id, id'),
    createIndex('decisions_by_request', 'decisions', 'tenant_id, request_id'),
  ],
  // 10: push on change (docs/reference/api.md, "Push on change"): whether a directory change or
  // a policy push is broadcast to the tenant's edges by itself. Off unless the tenant turns it
  // on; the first-start seed turns it on for the demo tenant.
  [addColumn('tenants', 'push_on_change', 'integer NOT NULL DEFAULT 0')],
];
