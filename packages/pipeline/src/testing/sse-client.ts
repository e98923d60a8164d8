// Test support: a server-sent events reader over fetch, as an EventSource would parse the stream.

export interface SseEvent {
  /** `message` when the event named none. */
  event: string;
  data: string;
  /** The id this event set, or null when it set none. */
  id: string | null;
}

export interface SseItem {
  comment?: string;
  event?: SseEvent;
}

/** Yields the events and comment lines of an event-stream body, in order, until it ends or breaks. */
export async function* readSse(response: Response): AsyncGenerator<SseItem> {
  if (response.body === null) return;
  const decoder = new TextDecoder();
  let buffer = '';
  let fields: { event: string; data: string[]; id: string | null } = { event: 'message', data: [], id: null };
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    let newline = buffer.indexOf('\n');
    while (newline !== -1) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf('\n');
      if (line === '') {
        if (fields.data.length > 0) yield { event: { event: fields.event, data: fields.data.join('\n'), id: fields.id } };
        fields = { event: 'message', data: [], id: null };
      } else if (line.startsWith(':')) {
        yield { comment: line.slice(1).trim() };
      } else {
        const colon = line.indexOf(':');
        const name = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (name === 'data') fields.data.push(value);
        else if (name === 'event') fields.event = value;
        else if (name === 'id') fields.id = value;
      }
    }
  }
}
