"""Tests of navigation meshes."""
