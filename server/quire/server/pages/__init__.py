"""Published pages engine: body cache, literal grep and the bounded command language."""
