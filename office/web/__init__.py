"""The office page's server, the public site's pages and server, and its static export."""
