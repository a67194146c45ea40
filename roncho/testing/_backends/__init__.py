"""The emulator's backends: the state rules of each resource, with no HTTP in them.

One module per resource (workspaces, peers, sessions, messages, conclusions, search, chat,
keys, queue, scopes, webhooks), the way moto splits a service into its `models.py`, plus
`context` (what the recall reads assemble: representations, peer and session context) and
`lookups` (the session lookup the scope rules share). Every rule of the server lives here,
the order its checks answer in too; route handlers only parse and render. A backend
function takes the store's objects and plain values, changes the state or reads it, and returns
state objects or plain values; it raises `ApiError` when the server's rules refuse. Callers hold
`Store.lock` for the whole call (`App.dispatch` does, around a route handler's parsing, its
calls and the rendering of its answer). A new resource is a backend module here, a route
module there, and one line in `_routes.ROUTE_MODULES`.
"""
