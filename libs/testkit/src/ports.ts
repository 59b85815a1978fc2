import net from 'node:net';

/** A TCP port on 127.0.0.1 that was free a moment ago (for servers that can't bind port 0 themselves). */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('could not read the bound port'));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}
