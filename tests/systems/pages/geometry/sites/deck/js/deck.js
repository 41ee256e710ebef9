// A tiny deck framework: shows the slide named by the hash, adds progress, slide
// number and a footer (which the theme puts where the slide number is: a defect).
(function () {
  const slides = Array.from(document.querySelectorAll('.reveal .slides > section'));
  const reveal = document.querySelector('.reveal');
  const progress = document.createElement('div');
  progress.className = 'progress';
  const number = document.createElement('div');
  number.className = 'slide-number';
  const footer = document.createElement('div');
  footer.className = 'footer';
  footer.textContent = 'Company confidential';
  reveal.append(progress, number, footer);
  function show() {
    const i = Math.min(slides.length - 1, Math.max(0, parseInt(location.hash.slice(2) || '0', 10) || 0));
    slides.forEach((s, j) => s.classList.toggle('present', j === i));
    number.textContent = (i + 1) + ' / ' + slides.length;
    progress.style.width = (1920 * (i + 1) / slides.length) + 'px';
  }
  window.addEventListener('hashchange', show);
  show();
})();
