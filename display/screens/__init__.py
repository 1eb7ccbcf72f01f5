"""One module per screen; each turns a typed view into draw items. Pure."""
