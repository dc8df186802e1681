"""Club and tournament mode: every board's journal published over MQTT, refereed again and stored by one
server, and shown live on a web page.

`topics` names the MQTT topics and checks messages, `broker` writes and starts a Mosquitto with per-board
credentials, `publisher` sends a board's journal, `server` receives and re-referees, `store` keeps matches in
SQLite or PostgreSQL, `web` is the page.
"""
