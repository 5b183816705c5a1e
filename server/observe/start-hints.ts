// What the "listening on" line tells whoever just ran `npm start`: where the playground and the
// console are, and how to make an API key (README "Set-up"). Printed by a single node and by the
// PROCESSES primary alike.

export interface StartHints {
  playground: string;
  console: string;
  newKey: string;
}

export const NEW_KEY_HINT = 'npm run key -- create --tier pro --name NAME (the key is the last line), or sign up in the console';

export function startHints(url: string): StartHints {
  // A server on every address (0.0.0.0, [::]) is reached from its own machine at localhost.
  const local = url.replace(/^http:\/\/(?:0\.0\.0\.0|\[::\])(?=:)/, 'http://localhost');
  return { playground: `${local}/`, console: `${local}/console`, newKey: NEW_KEY_HINT };
}
