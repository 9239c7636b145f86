"""An example HTTP game server for abyss-rules (`app`, `games`, `store`), a tiny client with bots (`client`).

Run the server from the repository root with
`python -m examples.server --db sqlite:///games.db --port 0`;
see `examples/server/README.md` and the "Example game server" page of the docs.
"""
