// Opens the listening socket. uWS sets SO_REUSEPORT unless told otherwise, and then a second server
// started on a taken port shares it silently: the kernel splits connections between two processes
// with different keys, sessions and limits. So a port is held exclusively unless `reusePort` says
// the sharing is meant (several processes of one deployment, each taking its share of connections).
import type { TemplatedApp, us_listen_socket } from './load-uws.js';

/** uSockets' listen options (LIBUS_LISTEN_DEFAULT shares the port, EXCLUSIVE_PORT does not). */
const LIBUS_LISTEN_DEFAULT = 0;
const LIBUS_LISTEN_EXCLUSIVE_PORT = 1;

export interface ListenSettings {
  host: string;
  port: number;
  /** Share the port with other processes on purpose (SO_REUSEPORT). Default: exclusive. */
  reusePort?: boolean;
}

// The typings omit the (host, port, options, cb) form the native module accepts.
type ListenWithOptions = (host: string, port: number, options: number, cb: (socket: us_listen_socket | false) => void) => void;

export function listen(app: TemplatedApp, settings: ListenSettings): Promise<us_listen_socket> {
  const { host, port } = settings;
  const options = settings.reusePort === true ? LIBUS_LISTEN_DEFAULT : LIBUS_LISTEN_EXCLUSIVE_PORT;
  return new Promise((resolve, reject) => {
    (app.listen as unknown as ListenWithOptions).call(app, host, port, options, (socket) => {
      if (socket !== false) resolve(socket);
      else reject(new Error(`cannot listen on ${host}:${port} (HOST=${host}, PORT=${port}): the port is already in use, or the address is not one of this machine's`));
    });
  });
}
