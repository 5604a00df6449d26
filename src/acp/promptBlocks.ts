// The editor's prompt as Garuda keeps it in the session file, and back: text, a link
// (resource_link) and embedded context (resource) keep their shape, so session/load shows each
// prompt as the user sent it. What the file does not keep (an image, binary context) is kept as
// a link to its address, or left out when it has none.
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { PromptBlock } from "../store/sessionRecords.ts";

/** The last part of an address, for a link's name. */
function nameOf(uri: string): string {
  const path = uri.replace(/[?#].*$/, "").replace(/\/+$/, "");
  return decodeURIComponentSafe(path.slice(path.lastIndexOf("/") + 1)) || uri;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function promptBlocks(blocks: readonly ContentBlock[]): PromptBlock[] {
  return blocks.flatMap((block): PromptBlock[] => {
    switch (block.type) {
      case "text":
        return [{ type: "text", text: block.text }];
      case "resource_link":
        return [
          {
            type: "link",
            uri: block.uri,
            name: block.name,
            ...(block.title && { title: block.title }),
            ...(block.mimeType && { mimeType: block.mimeType }),
          },
        ];
      case "resource": {
        const resource = block.resource;
        const mimeType = resource.mimeType ? { mimeType: resource.mimeType } : {};
        return "text" in resource
          ? [{ type: "resource", uri: resource.uri, text: resource.text, ...mimeType }]
          : [{ type: "link", uri: resource.uri, name: nameOf(resource.uri), ...mimeType }];
      }
      case "image":
        return block.uri ? [{ type: "link", uri: block.uri, name: nameOf(block.uri), mimeType: block.mimeType }] : [];
      case "audio":
        return [];
    }
  });
}

export function contentBlock(block: PromptBlock): ContentBlock {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "link":
      return {
        type: "resource_link",
        uri: block.uri,
        name: block.name,
        ...(block.title && { title: block.title }),
        ...(block.mimeType && { mimeType: block.mimeType }),
      };
    case "resource":
      return {
        type: "resource",
        resource: { uri: block.uri, text: block.text, ...(block.mimeType && { mimeType: block.mimeType }) },
      };
  }
}
