import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './components/App.tsx'
import { ApiError } from './data/http.ts'
import './styles.css'

const queryClient = new QueryClient({
  defaultOptions: {
    // a refusal for want of a token is not tried again (the overlay asks to sign in at once), nor what does not exist
    queries: {
      staleTime: 5_000,
      refetchOnWindowFocus: true,
      retry: (failures, error) => !(error instanceof ApiError && (error.status === 401 || error.status === 404)) && failures < 3,
    },
    mutations: { retry: false },
  },
})

const root = document.getElementById('root')
if (root === null) throw new Error('overlay: #root is missing from index.html')

createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
)
