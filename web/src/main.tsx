import { render } from 'preact';
import { App } from './views/app/App';
import { registerServiceWorker } from './lib/serviceWorker';
import { initTheme } from './lib/theme';
import './styles.css';

initTheme();
render(<App />, document.getElementById('app')!);
registerServiceWorker();
