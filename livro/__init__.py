"""O livro do curso (``make livro``): as aulas de ``course/`` como um site estático em ``build/livro/``."""
