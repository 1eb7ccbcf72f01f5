"""The tournament model: tournament and event files (``files``), what they say (``model``),
how a tournament file is read and its schedule checked (``reader``), and events of several
categories (``event``). Read by the office and by a hall that plays from a local copy."""
