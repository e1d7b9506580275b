import 'uplot/dist/uPlot.min.css';
import './styles/base.css';
import './styles/panels.css';
import './styles/forms.css';
import { render } from 'preact';
import { App } from './App';

render(<App />, document.getElementById('app')!);
