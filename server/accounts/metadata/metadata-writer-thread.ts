// The metadata writer's thread: owns its own connection to the SQLite file and does the inserts and
// retention deletes, so neither the per-row insert cost (several µs) nor a lock wait ever runs on the
// uWS thread. Protocol: see metadata-writer.ts.
import { parentPort, workerData } from 'node:worker_threads';
import { rowsOfBatch } from './metadata-batch.js';
import { SqliteStorage } from '../storage/sqlite-storage.js';
import type { WriterReply, WriterRequest } from './metadata-writer.js';

const { dataDir, busyTimeoutMs } = workerData as { dataDir: string; busyTimeoutMs: number };
const storage = new SqliteStorage({ dataDir, busyTimeoutMs });
const port = parentPort!;

port.on('message', (request: WriterRequest) => {
  void handle(request).then((reply) => port.postMessage(reply));
});

async function handle(request: WriterRequest): Promise<WriterReply> {
  try {
    switch (request.op) {
      case 'insert':
        await storage.insertMetadata(request.rows);
        return { id: request.id, ok: true, value: request.rows.length };
      case 'insertBatch':
        await storage.insertMetadata(rowsOfBatch(request.batch));
        return { id: request.id, ok: true, value: request.batch.length };
      case 'delete':
        return { id: request.id, ok: true, value: await storage.deleteMetadataOlderThan(request.cutoff, request.limit) };
      case 'close':
        await storage.close();
        setImmediate(() => port.close()); // after the reply is sent; the thread then ends by itself
        return { id: request.id, ok: true, value: 0 };
    }
  } catch (error) {
    const e = error as { message?: string; code?: string };
    return { id: request.id, ok: false, message: e.message ?? String(error), code: e.code ?? null };
  }
}
