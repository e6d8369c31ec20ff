/** The CLI named a tenant that does not exist. */
export class UnknownTenantError extends Error {
  constructor(readonly tenantId: string) {
    super(`unknown tenant ${tenantId}`);
    this.name = 'UnknownTenantError';
  }
}
