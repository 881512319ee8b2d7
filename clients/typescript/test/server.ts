// Starts the real `meridian` binary for the tests: a fresh data directory, HTTP and DNS on free
// ports, settings from MERIDIAN_* variables.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** The repository root: the first folder above this file holding Cargo.toml and openapi.json. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "Cargo.toml")) && existsSync(join(dir, "openapi.json"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error("the repository root (Cargo.toml and openapi.json) is not above the tests");
    dir = parent;
  }
}

/** `$MERIDIAN_BIN`, else target/debug/meridian of the repository, built first when missing. */
export function meridianBinary(): string {
  const fromEnv = process.env.MERIDIAN_BIN;
  if (fromEnv) return resolve(fromEnv);
  const root = repoRoot();
  const bin = join(root, "target", "debug", "meridian");
  // A build elsewhere may be replacing the file this very moment: give it a few seconds.
  for (let i = 0; i < 20 && !existsSync(bin); i++) spawnSync("sleep", ["0.5"]);
  if (!existsSync(bin)) {
    const built = spawnSync("cargo", ["build", "-p", "meridian", "--bin", "meridian"], { cwd: root, stdio: "inherit" });
    if (built.status !== 0 || !existsSync(bin)) throw new Error(`cargo build -p meridian failed (status ${built.status})`);
  }
  return bin;
}

export interface RunningServer {
  /** `http://127.0.0.1:PORT` */
  baseUrl: string;
  httpAddr: string;
  dnsHost: string;
  dnsPort: number;
  dataDir: string;
  /** Everything the server printed (stdout and stderr), for failure messages. */
  output: string[];
  stop(): Promise<void>;
}

function withoutBin(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { MERIDIAN_BIN: _bin, ...rest } = env;
  return rest;
}

/** Starts a server and waits for both listeners; `env` adds MERIDIAN_* settings. */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const bin = meridianBinary();
  const dataDir = mkdtempSync(join(tmpdir(), "meridian-ts-"));
  const child: ChildProcess = spawn(
    bin,
    ["--data-dir", dataDir, "serve", "--http", "127.0.0.1:0", "--dns", "127.0.0.1:0"],
    {
      // MERIDIAN_BIN names the binary for the tests; the server reads every other MERIDIAN_*
      // variable as configuration and refuses keys it does not know.
      env: { ...withoutBin(process.env), MERIDIAN_LOG__LEVEL: "warn", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const output: string[] = [];
  let httpAddr: string | undefined;
  let dnsAddr: string | undefined;
  let exited: string | undefined;
  let onChange: () => void = () => undefined;
  // Keep draining both pipes for the server's whole life, so that it never blocks on a full pipe.
  createInterface({ input: child.stdout! }).on("line", (line) => {
    output.push(line);
    const http = /listening on http (\S+)/.exec(line);
    if (http) httpAddr = http[1];
    const dns = /listening on dns (\S+)/.exec(line);
    if (dns) dnsAddr = dns[1];
    onChange();
  });
  createInterface({ input: child.stderr! }).on("line", (line) => {
    output.push(line);
  });
  const exitPromise = new Promise<void>((resolveExit) => {
    child.on("exit", (code, signal) => {
      exited = `exited with ${code ?? signal}`;
      onChange();
      resolveExit();
    });
  });
  await new Promise<void>((resolveReady, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start in 60 s:\n${output.join("\n")}`)), 60_000);
    onChange = () => {
      if (exited) {
        clearTimeout(timer);
        reject(new Error(`the server ${exited}:\n${output.join("\n")}`));
      } else if (httpAddr && dnsAddr) {
        clearTimeout(timer);
        resolveReady();
      }
    };
    onChange();
  });
  onChange = () => undefined;
  const dnsMatch = /^(.*):(\d+)$/.exec(dnsAddr!);
  return {
    baseUrl: `http://${httpAddr}`,
    httpAddr: httpAddr!,
    dnsHost: dnsMatch![1]!.replace(/^\[|\]$/g, ""),
    dnsPort: Number(dnsMatch![2]),
    dataDir,
    output,
    async stop() {
      if (!exited) {
        child.kill("SIGTERM");
        const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        await exitPromise;
        clearTimeout(killer);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
