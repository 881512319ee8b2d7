// Credentials: an API key sent as it is, or traded for short-lived access tokens that are
// refreshed before they expire.

/** An access token and when it stops being used. */
export interface AccessTokenState {
  token: string;
  /** Epoch milliseconds at which the server stops accepting it. */
  expiresAt: number;
  /** Epoch milliseconds after which the client trades the key for a new one. */
  refreshAt: number;
}

/** The answer of `POST /api/v1/auth/token`. */
export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in: number;
}

/**
 * Keeps one access token, trading the API key for a new one when a minute of its lifetime is
 * left (a fifth of it, for tokens shorter than five minutes). Concurrent callers share one
 * exchange.
 */
export class TokenManager {
  private state: AccessTokenState | undefined;
  private pending: Promise<AccessTokenState> | undefined;

  constructor(
    private readonly exchange: (signal?: AbortSignal) => Promise<TokenResponse>,
    private readonly now: () => number = Date.now,
  ) {}

  /** A token valid for a while yet: the kept one, or a fresh one. */
  async token(signal?: AbortSignal): Promise<string> {
    const state = this.state;
    if (state && this.now() < state.refreshAt) return state.token;
    return (await this.refresh(signal)).token;
  }

  /** The kept token, without refreshing it. */
  get current(): AccessTokenState | undefined {
    return this.state;
  }

  /** Trades the key for a new token now (one exchange however many callers ask at once). */
  refresh(signal?: AbortSignal): Promise<AccessTokenState> {
    if (!this.pending) {
      const started = this.now();
      this.pending = this.exchange(signal)
        .then((res) => {
          if (typeof res.access_token !== "string" || typeof res.expires_in !== "number") {
            throw new Error("the token endpoint answered without access_token and expires_in");
          }
          const lifetimeMs = res.expires_in * 1000;
          const state: AccessTokenState = {
            token: res.access_token,
            expiresAt: started + lifetimeMs,
            refreshAt: started + lifetimeMs - Math.min(60_000, lifetimeMs * 0.2),
          };
          this.state = state;
          return state;
        })
        .finally(() => {
          this.pending = undefined;
        });
    }
    return this.pending;
  }

  /** Forgets the token (after the server refused it). */
  invalidate(token?: string): void {
    if (token === undefined || this.state?.token === token) this.state = undefined;
  }
}
