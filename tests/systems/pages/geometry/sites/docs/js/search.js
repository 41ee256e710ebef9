// A search box added by script (as pdoc's and sphinx's pages do).
(function () {
  const box = document.createElement('input');
  box.type = 'search';
  box.placeholder = 'Search the docs';
  box.style.width = '180px';
  document.getElementById('sidebar').appendChild(box);
})();
