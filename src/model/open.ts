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
 * The client for a connection. The provider's SDK is imported here, on first use, so commands
 * that never call a model (and `garuda acp` until a session starts) do not load it.
 */
export async function openModelClient(connection: ModelConnection): Promise<ModelClient> {
  switch (connection.provider.type) {
    case "anthropic": {
      const { createAnthropicClient } = await import("./anthropic.ts");
      const credential = connection.credential;
      return createAnthropicClient({
        ...(credential && (credential.kind === "apiKey" ? { apiKey: credential.value } : { authToken: credential.value })),
        ...(connection.baseUrl ? { baseUrl: connection.baseUrl } : {}),
      });
    }
    case "openai-compatible": {
      const { createOpenAICompatibleClient } = await import("./openaiCompatible.ts");
      const { provider, credential } = connection;
      const baseUrl = connection.baseUrl ?? provider.baseUrl;
      if (!baseUrl) throw new ModelError(`The provider "${provider.name}" has no base URL. Set "baseUrl" for it in ~/.garuda/models.json.`);
      return createOpenAICompatibleClient({
        baseUrl,
        provider,
        ...(credential && { apiKey: credential.value }),
        ...(connection.model?.textToolCalls && { textToolCalls: true }),
      });
    }
  }
}
