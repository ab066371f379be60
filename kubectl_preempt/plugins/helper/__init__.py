"""Helpers shared by plugins, as upstream's framework/plugins/helper (plus the pieces of
component-helpers/scheduling/corev1 they call)."""
