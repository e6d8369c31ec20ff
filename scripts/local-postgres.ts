// A throwaway PostgreSQL for trying the control plane on PostgreSQL without installing a service:
//
//   npm run local-postgres                 # then, in another terminal:
//   DATABASE_URL=postgres://outpost@127.0.0.1:5433/outpost npm start
//
// Debian's `postgresql` binaries run as a child process in a temporary folder, on loopback, with
// durability off (the test harness's server, scripts/lib/local-postgres.ts; --durable keeps
// PostgreSQL's defaults); Ctrl+C or SIGTERM stops it and removes the folder. Every start is an
// empty database.
import { runScript } from './lib/run-script';
import { durabilityLine, startLocalPostgres } from './lib/local-postgres';
import { portNumber, scriptCommand } from './lib/script-command';

interface Options {
  readonly port: number;
  readonly durable: boolean;
}

async function main(options: Options): Promise<void> {
  const pg = await startLocalPostgres({ port: options.port, durable: options.durable });
  console.log(`PostgreSQL is up (a throwaway server in ${pg.dir}), ${durabilityLine(options.durable)}:\n  DATABASE_URL=${pg.url}\nStop with Ctrl+C (the server and its folder go with it).`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
    process.once('SIGHUP', resolve);
  });
  await pg.stop();
  console.log('PostgreSQL stopped; its folder is removed.');
}

scriptCommand(
  'npm run local-postgres --',
  "start a throwaway PostgreSQL on loopback (Debian's postgresql binaries, a temporary folder) until Ctrl+C",
  'npm run local-postgres   # then: DATABASE_URL=postgres://outpost@127.0.0.1:5433/outpost npm start',
)
  .option('--port <number>', 'loopback port (beside a system server on 5432)', portNumber, 5433)
  .option('--durable', "keep PostgreSQL's durability settings (slower; an acknowledged write survives a crash)", false)
  .action((options: Options) => runScript('local-postgres', () => main(options)))
  .parseAsync()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
