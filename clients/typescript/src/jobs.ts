// Waiting for durable jobs (`/api/v1/jobs/{id}`).
import type { MeridianClient } from "./client.js";
import { MeridianProblem, normalizeProblem } from "./problem.js";
import { sleep } from "./retry.js";
import type { Schema } from "./types.js";

/** A job as `GET /api/v1/jobs/{id}` answers it. */
export type Job = Schema<"JobView">;

/** Options of `waitForJob`. */
export interface WaitOptions {
  /** Called with the job whenever its status or progress changed (and once at the start). */
  onProgress?: (job: Job) => void;
  /** First interval between polls (default 250 ms); it grows by half each poll up to `maxIntervalMs`. */
  intervalMs?: number;
  /** Longest interval between polls (default 2 s). */
  maxIntervalMs?: number;
  /** Give up after this long (default: never), with a `TimeoutError`. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** A job that ended without succeeding: `failed` (with the server's problem) or `cancelled`. */
export class JobFailedError extends Error {
  readonly job: Job;
  /** `failed` or `cancelled`. */
  readonly status: string;
  /** Why it failed, as the problem document the job holds. */
  readonly problem: MeridianProblem | undefined;

  constructor(job: Job) {
    const problem =
      job.error !== undefined && job.error !== null
        ? new MeridianProblem(normalizeProblem(job.error, { status: 500, statusText: "Job failed" }))
        : undefined;
    super(`job ${job.id} (${job.kind}) ${job.status}${problem ? `: ${problem.code}: ${problem.detail}` : ""}`);
    this.name = "JobFailedError";
    this.job = job;
    this.status = job.status;
    this.problem = problem;
  }
}

export const TERMINAL_JOB_STATUSES = ["succeeded", "failed", "cancelled"] as const;

export async function waitForJob(client: MeridianClient, id: string, options: WaitOptions = {}): Promise<Job> {
  const started = Date.now();
  let interval = options.intervalMs ?? 250;
  const maxInterval = options.maxIntervalMs ?? 2000;
  let last: string | undefined;
  for (;;) {
    const job = await client.GET("/api/v1/jobs/{job_id}", {
      params: { path: { job_id: id } },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const state = `${job.status} ${job.progress}`;
    if (state !== last) {
      last = state;
      options.onProgress?.(job);
    }
    if (job.status === "succeeded") return job;
    if (job.status === "failed" || job.status === "cancelled") throw new JobFailedError(job);
    if (options.timeoutMs !== undefined && Date.now() - started + interval > options.timeoutMs) {
      const err = new Error(`job ${id} still ${job.status} (${job.progress}%) after ${options.timeoutMs} ms`);
      err.name = "TimeoutError";
      throw err;
    }
    await sleep(interval, options.signal);
    interval = Math.min(maxInterval, Math.round(interval * 1.5));
  }
}
