"""The companion page: the host's panel and the table view, served by aiohttp."""
