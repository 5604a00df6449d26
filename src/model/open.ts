import type { ProviderInfo } from "./catalog.ts";
import type { ModelClient } from "./types.ts";

/** Where and how to reach a provider: what the config layer decided for one session. */
export interface ModelConnection {
  provider: ProviderInfo;
  baseUrl?: string;
  credential: { kind: "apiKey" | "authToken"; value: string };
}

/**
 * The client for a connection. The provider's SDK is imported here, on first use, so commands
 * that never call a model (and `garuda acp` until a session starts) do not load it.
 */
export async function openModelClient(connection: ModelConnection): Promise<ModelClient> {
  switch (connection.provider.type) {
    case "anthropic": {
      const { createAnthropicClient } = await import("./anthropic.ts");
      const { kind, value } = connection.credential;
      return createAnthropicClient({
        ...(kind === "apiKey" ? { apiKey: value } : { authToken: value }),
        ...(connection.baseUrl ? { baseUrl: connection.baseUrl } : {}),
      });
    }
  }
}
