/**
 * Largest control-plane response the edge reads (policy image, directory snapshot, change
 * list). The admin API accepts far smaller bodies, so anything larger is a fault or an
 * attack, and buffering it would cost the edge its memory.
 */
export const MAX_CONTROL_PLANE_RESPONSE_BYTES = 8 * 1024 * 1024;

/**
 * Reads a response body as text, streaming, and cancels the download as soon as it passes
 * `maxBytes` (`undefined` then). `Content-Length` alone is not trusted: a chunked body has none.
 */
export async function readBoundedBody(response: Response, maxBytes: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    return undefined;
  }
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
