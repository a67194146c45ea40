// What differs from run to run, masked, and what an SDK call returned, as JSON (flow.mjs).
// Apart from the flow so that tests/sdk_ts/test_sdk_ts_masking.py can hold it without a server.

const NANOID = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{21}(?![A-Za-z0-9_-])/g;
const TIMESTAMP = /\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?/g;

// The workspace name becomes {W}, the run's session name {S1}, server-made ids {id} and
// timestamps {ts}.
export function masking(workspace, s1) {
  function maskText(text) {
    const named = text.split(workspace).join("{W}").split(s1).join("{S1}");
    return named.replace(TIMESTAMP, "{ts}").replace(NANOID, "{id}");
  }

  function mask(value) {
    if (typeof value === "string") return maskText(value);
    if (Array.isArray(value)) return value.map(mask);
    if (value && typeof value === "object") {
      const out = {};
      for (const key of Object.keys(value).sort()) out[maskText(key)] = mask(value[key]);
      return out;
    }
    return value === undefined ? null : value;
  }

  // What an SDK call returned, as JSON: SDK objects by their own fields (getters included).
  function describe(value, depth = 0, parentKey = "") {
    if (value === null || value === undefined) return null;
    if (typeof value !== "object") return mask(value);
    if (depth > 4) return `<${value.constructor?.name}>`;
    if (Array.isArray(value)) return value.map((item) => describe(item, depth + 1));
    if (typeof value.items !== "undefined" && typeof value.total === "number") {
      return { page: describe(value.items, depth + 1), total: value.total, pages: value.pages };
    }
    const out = {};
    // Queue status maps sessions by server-made id: those keys are data, masked whole, and kept
    // even when an id starts with `_` (nanoid's alphabet has it), which elsewhere marks an SDK
    // object's private field. Such a map is read by its own keys only: a plain object's
    // prototype has the getter `__proto__`, which would land on `{id}` too.
    const idMap = parentKey === "sessions";
    const proto = Object.getPrototypeOf(value);
    const getters =
      proto && !idMap
        ? Object.entries(Object.getOwnPropertyDescriptors(proto))
            .filter(([, d]) => d.get)
            .map(([k]) => k)
        : [];
    for (const key of [...Object.keys(value), ...getters].sort()) {
      if (!idMap && (key.startsWith("_") || key === "http" || key === "conclusions")) continue;
      const item = value[key];
      if (typeof item === "function") continue;
      const name = idMap ? "{id}" : maskText(key);
      out[name] = describe(item, depth + 1, key);
    }
    const name = value.constructor?.name;
    return name && name !== "Object" ? { [name]: out } : out;
  }

  return { maskText, mask, describe };
}
