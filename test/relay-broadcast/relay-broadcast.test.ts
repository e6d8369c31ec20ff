/**
 * The broadcast plug-in before a relay started it: its broadcast refuses with a plain Error
 * that says what to do, rather than failing on an undefined function or reaching no edge.
 */
import { relayBroadcast } from '../../src/relay-broadcast';

it('refuses to broadcast until a relay started its extension', async () => {
  const plugin = relayBroadcast({ desiredState: async () => ({ policyDigest: null, directoryRevision: null }) });
  expect(plugin.extension.name).toBe('broadcast');
  await expect(plugin.broadcast('t1', 'discovery')).rejects.toThrow('the broadcast plug-in has not been started: pass its extension to createRelay');
});
