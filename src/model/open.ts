import type { ModelInfo, ProviderInfo } from "./catalog.ts";
import { type ModelClient, ModelError } from "./types.ts";

/** Where and how to reach a provider: what the config layer decided for one session. */
export interface ModelConnection {
  provider: ProviderInfo;
  baseUrl?: string;
  /** Undefined for a provider that needs no key (a local server). */
  credential?: { kind: "apiKey" | "authToken"; value: string };
  /** The model, for what changes how it is called (textToolCalls). */
  model?: Pick<ModelInfo, "textToolCalls">;
}

/**
 * The client for a connection. The provider's SDK is imported at the first request, not when a
 * session is created: commands that never call a model do not load it, and session/new stays fast.
 */
export async function openModelClient(connection: ModelConnection): Promise<ModelClient> {
  let client: Promise<ModelClient> | undefined;
  return {
    async *stream(request, signal) {
      client ??= createClient(connection);
      yield* (await client).stream(request, signal);
    },
  };
}

async function createClient(connection: ModelConnection): Promise<ModelClient> {
  switch (connection.provider.type) {
    case "anthropic": {
      const { createAnthropicClient } = await import("./anthropic.ts");
      const credential = connection.credential;
      return createAnthropicClient({
        ...(credential &&
          (credential.kind === "apiKey" ? { apiKey: credential.value } : { authToken: credential.value })),
        ...(connection.baseUrl ? { baseUrl: connection.baseUrl } : {}),
      });
    }
    case "openai-compatible": {
      const { createOpenAICompatibleClient } = await import("./openaiCompatible.ts");
      const { provider, credential } = connection;
      const baseUrl = connection.baseUrl ?? provider.baseUrl;
      if (!baseUrl)
        throw new ModelError(
          `The provider "${provider.name}" has no base URL. Set "baseUrl" for it in ~/.garuda/models.json.`,
        );
      return createOpenAICompatibleClient({
        baseUrl,
        provider,
        ...(credential && { apiKey: credential.value }),
        ...(connection.model?.textToolCalls && { textToolCalls: true }),
      });
    }
  }
}
