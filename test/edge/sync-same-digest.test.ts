import type { ControlPlaneClient } from '../../src/edge/control-plane-client';
import type { EdgeState } from '../../src/edge/edge-state';
import { syncPolicy } from '../../src/edge/sync-policy';
import { silentLogger } from '../../src/observability';
import type { CedarCall } from '../helpers/recording-cedar';
import { removeDir, tempDir } from './edge-kit';
import { rbacImage } from './fake-control-plane';

const mockCalls: CedarCall[] = [];
jest.mock('../../packages/cedar-authorizer/src/cedar-engine', () => jest.requireActual<typeof import('../helpers/recording-cedar')>('../helpers/recording-cedar').recordingCedarEngine(() => mockCalls));

const image = rbacImage();
let served: unknown = image;
// A control plane that ignores If-None-Match: the active image comes back in full.
const client: ControlPlaneClient = {
  getPolicyImage: async () => ({ status: 'downloaded', body: JSON.parse(JSON.stringify(served)) as unknown }),
  getDirectory: () => Promise.reject(new Error('not in this test')),
  getDirectoryChanges: () => Promise.reject(new Error('not in this test')),
  abort: () => undefined,
};
let dataDir: string;
const state: EdgeState = { policy: undefined, directory: undefined };
const sync = () => syncPolicy({ client, state, dataDir, logger: silentLogger(), pinned: undefined });

beforeEach(() => {
  dataDir = tempDir();
});
afterEach(() => {
  state.policy?.compiled.release();
  state.policy = undefined;
  removeDir(dataDir);
});

describe('a discovery that downloads the active image again', () => {
  it('verifies it, and neither compiles nor tests nor stores it again', async () => {
    await expect(sync()).resolves.toBe('updated');
    const active = state.policy;
    mockCalls.length = 0;
    await expect(sync()).resolves.toBe('unchanged');
    expect(state.policy).toBe(active);
    expect(mockCalls).toEqual([]);
  });

  it('still refuses a copy whose content does not match the active digest', async () => {
    await sync();
    served = { ...image, files: { ...image.files, 'rbac.cedar': 'permit (principal, action, resource);' } };
    await expect(sync()).rejects.toThrow(/digest mismatch/);
    served = image;
  });
});
