"""colmeia.apps.moderation."""
