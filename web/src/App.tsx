import { useCallback, useEffect, useState } from 'react';
import { ApiError, request, requestData, setCsrfToken, setSessionEndedHandler } from './api/client.ts';
import type { SessionData } from './api/index.ts';
import { Loading } from './components/common.tsx';
import { AccountPage } from './pages/AccountPage.tsx';
import { AdminPage } from './pages/AdminPage.tsx';
import { AgentPage } from './pages/agent/AgentPage.tsx';
import { AgentSettingsPage } from './pages/agent-settings/AgentSettingsPage.tsx';
import { BillingPage } from './pages/BillingPage.tsx';
import { ChatPage } from './pages/ChatPage.tsx';
import { GenerationDetailPage } from './pages/GenerationDetailPage.tsx';
import { GenerationsPage } from './pages/GenerationsPage.tsx';
import { KeysPage } from './pages/KeysPage.tsx';
import { ModelsPage } from './pages/ModelsPage.tsx';
import { OverviewPage } from './pages/OverviewPage.tsx';
import { AccountSwitcher } from './components/AccountSwitcher.tsx';
import { JoinOrganizationPage } from './pages/organizations/JoinOrganizationPage.tsx';
import { OrganizationPage } from './pages/organizations/OrganizationPage.tsx';
import { OrganizationsPage } from './pages/organizations/OrganizationsPage.tsx';
import { PlaygroundPage } from './pages/PlaygroundPage.tsx';
import { ProjectsPage } from './pages/ProjectsPage.tsx';
import { SignInLinkPage } from './pages/SignInLinkPage.tsx';
import { SignInPage } from './pages/SignInPage.tsx';
import { StoragePage } from './pages/StoragePage.tsx';
import { UpstreamsPage } from './pages/UpstreamsPage.tsx';
import { WebhooksPage } from './pages/WebhooksPage.tsx';
import { Link, matchPath, navigate, useLocation } from './router.tsx';

const NAV = [
  { to: '/', label: 'Overview' },
  { to: '/keys', label: 'API keys' },
  { to: '/generations', label: 'Generations' },
  { to: '/playground', label: 'Playground' },
  { to: '/models', label: 'Models' },
  { to: '/chat', label: 'Chat' },
  { to: '/agent', label: 'Agent' },
  { to: '/projects', label: 'Projects' },
  { to: '/storage', label: 'Storage' },
  { to: '/webhooks', label: 'Webhooks' },
  { to: '/billing', label: 'Billing' },
  { to: '/organizations', label: 'Teams' },
  { to: '/account', label: 'Account' },
];

type SessionState = { state: 'loading' } | { state: 'signed-out'; error?: unknown } | { state: 'signed-in'; session: SessionData };

export function App() {
  const [session, setSession] = useState<SessionState>({ state: 'loading' });
  const { path } = useLocation();

  const signedIn = useCallback((data: SessionData) => {
    setCsrfToken(data.csrfToken);
    setSession({ state: 'signed-in', session: data });
  }, []);
  const signedOut = useCallback(() => {
    setCsrfToken(undefined);
    setSession({ state: 'signed-out' });
  }, []);

  useEffect(() => {
    setSessionEndedHandler(signedOut);
    requestData<SessionData>('GET', '/api/v1/auth/session', { quiet401: true }).then(signedIn, (error: unknown) =>
      setSession({ state: 'signed-out', ...(error instanceof ApiError && error.status === 401 ? {} : { error }) }),
    );
    return () => setSessionEndedHandler(undefined);
  }, [signedIn, signedOut]);

  const signOut = async () => {
    try {
      await request('POST', '/api/v1/auth/logout');
    } finally {
      signedOut();
      navigate('/login');
    }
  };

  if (session.state === 'loading') {
    return (
      <main id="main" className="auth-page">
        <Loading label="Loading the dashboard…" />
      </main>
    );
  }
  if (path === '/login/link') {
    return <SignInLinkPage signedInAs={session.state === 'signed-in' ? (session.session.user.email ?? undefined) : undefined} onSignedIn={signedIn} />;
  }
  if (session.state === 'signed-out') {
    const mode = path === '/signup' ? 'signup' : 'login';
    return (
      <SignInPage
        mode={mode}
        onSignedIn={(data) => {
          signedIn(data);
          if (path === '/login' || path === '/signup') navigate('/');
        }}
      />
    );
  }

  return <SignedInApp session={session.session} path={path} onSignOut={signOut} />;
}

/** The signed-in frame: top bar (a menu button on phones), the page. */
function SignedInApp(props: { session: SessionData; path: string; onSignOut: () => void }) {
  const { session, path, onSignOut: signOut } = props;
  const { user } = session;
  const [menuOpen, setMenuOpen] = useState(false);
  // A page change closes the phone menu.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the path changes.
  useEffect(() => setMenuOpen(false), [path]);
  const nav = user.isAdmin ? [...NAV, { to: '/admin', label: 'Admin' }] : NAV;
  const current = (to: string) => (to === '/' ? path === '/' : path === to || path.startsWith(`${to}/`));
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          Switchboard
        </Link>
        <button
          type="button"
          className="button menu-button"
          aria-expanded={menuOpen}
          aria-controls="main-menu"
          onClick={() => setMenuOpen((open) => !open)}
          onKeyDown={(event) => {
            if (event.key === 'Escape') setMenuOpen(false);
          }}
        >
          {menuOpen ? 'Close menu' : 'Menu'}
        </button>
        <nav aria-label="Main" id="main-menu" className={menuOpen ? 'menu-open' : undefined}>
          <ul>
            {nav.map((item) => (
              <li key={item.to}>
                <Link to={item.to} aria-current={current(item.to) ? 'page' : undefined}>
                  {item.label}
                </Link>
              </li>
            ))}
            <li>
              <a href="/docs" target="_blank" rel="noreferrer">
                API docs
              </a>
            </li>
          </ul>
        </nav>
        <div className="topbar-user">
          <span className="muted small">{user.email}</span>
          <button type="button" className="button button-small" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <AccountSwitcher path={path} />
        <Routes path={path} session={session} onSignOut={signOut} />
      </main>
    </>
  );
}

function Routes(props: { path: string; session: SessionData; onSignOut: () => void }) {
  const { path } = props;
  const { search } = useLocation();
  const detail = matchPath('/generations/:id', path);
  if (detail?.id) return <GenerationDetailPage id={detail.id} />;
  const conversation = matchPath('/agent/c/:id', path);
  if (conversation?.id) return <AgentPage conversationId={conversation.id} />;
  const project = matchPath('/projects/:id', path);
  if (project?.id) return <ProjectsPage projectId={project.id} />;
  if (path === '/organizations/join') return <JoinOrganizationPage email={props.session.user.email} />;
  const organization = matchPath('/organizations/:id', path);
  if (organization?.id) return <OrganizationPage id={organization.id} myUserId={props.session.user.id} />;
  switch (path) {
    case '/':
    case '/login':
    case '/signup':
      return <OverviewPage />;
    case '/keys':
      return <KeysPage />;
    case '/generations':
      return <GenerationsPage />;
    case '/playground':
      return <PlaygroundPage />;
    case '/models':
      return <ModelsPage />;
    case '/chat':
      return <ChatPage />;
    case '/agent':
      return <AgentPage />;
    case '/agent/new':
      return <AgentPage draft={{ projectId: search.get('project') ?? undefined }} />;
    case '/agent/settings':
      return <AgentSettingsPage />;
    case '/webhooks':
      return <WebhooksPage />;
    case '/billing':
      return <BillingPage />;
    case '/projects':
      return <ProjectsPage />;
    case '/organizations':
      return <OrganizationsPage />;
    case '/storage':
      return <StoragePage />;
    case '/account':
      return <AccountPage session={props.session} onSignOut={props.onSignOut} />;
    case '/admin':
      return props.session.user.isAdmin ? <AdminPage /> : <NotFound />;
    case '/admin/upstreams':
      return props.session.user.isAdmin ? <UpstreamsPage /> : <NotFound />;
    default:
      return <NotFound />;
  }
}

function NotFound() {
  return (
    <>
      <h1 id="page-title" tabIndex={-1}>
        Page not found
      </h1>
      <p>
        <Link to="/">Back to the overview</Link>
      </p>
    </>
  );
}
