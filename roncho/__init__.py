"""roncho: a small blocking client for the Honcho memory server (v3 API).

Standard library only. Importing it starts no thread, reads no environment variable,
touches no file and imports neither asyncio nor ssl.
"""
